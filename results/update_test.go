package results

import "flag"

var update = flag.Bool("update", false, "rewrite the generated files (the results schema and docs/results.md's field reference)")
