package cli

import (
	"flag"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/loadgate/loadgate/exporters"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
)

// exportFlag is run's repeatable --export KIND=DEST. LOADGATE_EXPORT holds
// several, separated by commas or spaces; given on the command line, the
// flag replaces the variable's.
type exportFlag struct {
	specs   []exporters.Spec
	env     string // LOADGATE_EXPORT, read by resolve
	flagSet bool
}

func (e *exportFlag) String() string { return "" }

func (e *exportFlag) Set(s string) error {
	sp, err := exporters.ParseSpec(s)
	if err != nil {
		return err
	}
	e.specs, e.flagSet = append(e.specs, sp), true
	return nil
}

func (e *exportFlag) register(fs *flag.FlagSet, env Env) {
	e.env = env.Getenv(envName("export"))
	fs.Var(e, "export", "push the run's live figures every second to `KIND=DEST`: prometheus-rw=URL (Prometheus remote write) or json-lines=FILE (a JSON object per point); repeatable. A receiver that is slow or down never slows or fails the load: what it missed is said at the end (docs/observability.md)")
}

// resolve reads LOADGATE_EXPORT when no --export was given; a bad value is
// refused before any load, as a bad flag is.
func (e *exportFlag) resolve() error {
	if e.flagSet || e.env == "" {
		return nil
	}
	specs, err := exporters.ParseSpecs(e.env)
	if err != nil {
		return fmt.Errorf("%s: %w", envName("export"), err)
	}
	e.specs = specs
	return nil
}

// openExports starts the exporters asked for; nil when none is.
func openExports(specs []exporters.Spec) (*exporters.Exporter, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	return exporters.Open(specs, exporters.Options{UserAgent: "loadgate/" + Version})
}

// closeExports sends what the exporters still hold and says, once, what
// any of them could not deliver: a warning, since the run's results and
// verdict do not depend on it.
func closeExports(exp *exporters.Exporter, log zerolog.Logger) {
	if exp == nil {
		return
	}
	for _, msg := range exp.Close() {
		log.Warn().Msg(msg)
	}
}

var (
	_ runner.Observer = (*exporters.Observer)(nil)
	_ runner.Observer = observers(nil)
)

// observers passes every call to each of its observers, in order.
type observers []runner.Observer

func (o observers) PhaseStarted(s results.Snapshot) {
	for _, x := range o {
		x.PhaseStarted(s)
	}
}

func (o observers) Progress(s results.Snapshot) {
	for _, x := range o {
		x.Progress(s)
	}
}

func (o observers) PhaseDone(s results.Snapshot, r *results.PhaseResult) {
	for _, x := range o {
		x.PhaseDone(s, r)
	}
}
