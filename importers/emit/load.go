package emit

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// The load every imported scenario starts with: modest, since the
// requests may go to a real service, and variables so that --var changes
// it without editing the file.
const (
	defaultDuration    = "10s"
	defaultConcurrency = "2"
	defaultWarmup      = "2s"
)

// ReservedVars are the variables of the load (LoadVars); an importer
// names none of its own so.
var ReservedVars = []string{"duration", "concurrency", "warmup"}

// LoadVars starts the scenario's vars with those of its load.
func LoadVars() Mapping {
	vars := NewMapping()
	vars.Set("duration", Plain(defaultDuration), "the load: --var duration=1m --var concurrency=10 changes it")
	vars.Set("concurrency", Plain(defaultConcurrency))
	vars.Set("warmup", Plain(defaultWarmup))
	return vars
}

// SetLoad writes the phases of the load, a short warm-up and the measured
// phase, and the thresholds an imported scenario starts with.
func SetLoad(root Mapping) {
	phase := func(kv ...string) *yaml.Node {
		m := NewMapping()
		for i := 0; i+1 < len(kv); i += 2 {
			m.Set(kv[i], Plain(kv[i+1]))
		}
		return m.N
	}
	root.Set("phases", Seq(
		phase("name", "warmup", "warmup", "true", "duration", "${warmup}", "concurrency", "${concurrency}"),
		phase("name", "measured", "duration", "${duration}", "concurrency", "${concurrency}"),
	), "a short warm-up, then the measured phase")
	root.Set("thresholds", Seq(Plain("error_rate < 1%"), Plain("p99 < 500ms")))
}

// UnsafeMethods warns that a load test repeats what may change data: the
// methods other than GET, HEAD and OPTIONS among those the requests use,
// "" when there is none.
func UnsafeMethods(methods []string) string {
	var unsafe []string
	for _, m := range methods {
		switch m {
		case "GET", "HEAD", "OPTIONS":
		default:
			unsafe = AppendNew(unsafe, m)
		}
	}
	if len(unsafe) == 0 {
		return ""
	}
	return "every iteration sends " + strings.Join(unsafe, ", ") + " again: load a system where repeating that is harmless"
}
