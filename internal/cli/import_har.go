package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loadgate/loadgate/importers/har"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/scenarios"
)

const importHARUsage = `import har [flags] FILE

Turns a browser recording, a HAR 1.2 file (the network panel's "Save all as HAR", or
Playwright's recordHar), into a scenario that passes loadgate validate: the requests of
the page's origin, in order, as a flow, with the recorded pauses as think times and the
recorded statuses expected. Static assets and other origins are left out unless asked
for. A value a later request sends that an earlier response gave (a CSRF token, an id,
a Location) becomes an extraction; cookies responses set are carried by a cookie jar;
other credentials become secret variables, never text in the file. The comment at the
top says what was extracted and which reused-looking values were not found
(docs/import.md).`

func importHAR(args []string, env Env) error {
	fs := newFlagSet("import har", env, importHARUsage)
	out := fs.String("out", "", "write the scenario to `FILE` instead of standard output")
	fs.StringVar(out, "o", "", "shorthand for --out")
	name := fs.String("name", "", "the scenario's `NAME` (default: from the page's host)")
	noThink := fs.Bool("no-think", false, "no think times: send each step right after the last")
	maxThink := fs.Duration("max-think", har.DefaultMaxThink, "the longest `DURATION` a recorded pause becomes as a think time")
	assets := fs.Bool("include-assets", false, "keep the static assets: images, style sheets, scripts, fonts, media")
	var origins []string
	fs.Func("origin", "keep the requests to the origin of `URL` (repeatable; default: the page's origin)", func(s string) error {
		origins = append(origins, s)
		return nil
	})
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(positional) != 1 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("import har: give one HAR file (- = standard input)"))
	}
	if *maxThink <= 0 {
		return withCode(ExitUsage, fmt.Errorf("import har: --max-think %s: want a duration > 0", *maxThink))
	}
	label, input, err := readImportInput(positional[0], env, maxHARInput)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("import har: %w", err))
	}
	data, err := har.Import(label, input, har.Options{Name: *name, SchemaURL: schemaURL(),
		MaxThink: *maxThink, NoThink: *noThink, IncludeAssets: *assets, Origins: origins})
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("import har: %w", err))
	}
	outDir, _ := os.Getwd()
	if *out != "" && *out != "-" {
		outDir = filepath.Dir(*out)
	}
	sc, err := scenarios.Parse(filepath.Join(outDir, "imported.yaml"), data, scenarios.LoadOptions{})
	if err == nil {
		_, err = compilePlan(sc)
	}
	if err != nil {
		return withCode(ExitRun, fmt.Errorf("import har: the scenario would not be valid (a fault of the import; please report it with the HAR file): %w", err))
	}
	if *out == "" || *out == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	if err := reporters.WriteFileAtomic(*out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return withCode(ExitRun, fmt.Errorf("import har: %w", err))
	}
	fmt.Fprintf(env.Stderr, "loadgate import har: wrote %s\nnext: loadgate validate %s\n", *out, *out)
	return nil
}

// maxHARInput bounds the recording read: one with its assets' contents
// embedded is often tens of MiB.
const maxHARInput = 256 << 20
