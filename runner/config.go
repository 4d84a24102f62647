package runner

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// Config tunes a run: settings only, what the run makes for itself is in
// scenarioRun. The zero value works: it logs nothing, observes nothing and
// sends with each target's protocol client.
type Config struct {
	Logger   zerolog.Logger
	Observer Observer // nil = no progress reporting
	// MaxPhase is the hard deadline of a phase that has no duration (a
	// request count only), so that a stalled server cannot hang the run.
	// Default 1h.
	MaxPhase time.Duration
	// Grace is how long a phase waits, after its deadline, for in-flight
	// requests to abort before it abandons them. Default 5s.
	Grace time.Duration
	// Tick is the time series resolution. Default 1s; tests shorten it.
	Tick time.Duration
	// LogDir receives server-<name>.log for every server started; "" keeps
	// only the last lines, for error messages.
	LogDir string
	// MonitorEvery is the sampling interval of servers under test. Default 1s.
	MonitorEvery time.Duration
	// Kill, when closed, ends every server under test with SIGKILL at once
	// instead of waiting out its stop timeout (a second Ctrl-C).
	Kill <-chan struct{}
	// Clock times the requests, paces the open model, ends the phases,
	// ticks (stalls and abort windows are measurements too) and reads the
	// generator's CPU. nil = WallClock. (Grace stays on the wall clock: it
	// guards against a client that ignores its context.)
	Clock Clock

	// Judge holds the rule evaluations the engine needs while it runs
	// (capacity SLOs, abort rules, adaptive trials); the CLI fills it from
	// the compiled thresholds, since rules are not the engine's to parse.
	Judge Judge

	// Workers runs every phase on worker goroutines, never on an event
	// loop (LOADGATE_EVENT_LOOP=false).
	Workers bool
}

// Judge evaluates rules for the engine while a run goes on. A nil field
// means none: a search phase then cannot run (Run fails), no threshold
// aborts, and adaptive trials stop at their minimum.
type Judge struct {
	// SLO judges one probe of phase ph of case c: passed, and the values
	// the rule saw ("p99 = 61ms, error_rate = 0"). An error (a rule that
	// cannot be evaluated) fails the probe with err as its reason.
	SLO func(c *scenarios.Case, ph *scenarios.Phase, probe results.Stats) (passed bool, actual string, err error)
	// Abort checks the abort: true thresholds of case c during phase ph
	// (warm-ups and search probes included), once a tick: stats(0) is the
	// phase so far, stats(w) its last w (whole ticks, at most 5 min). The
	// runner keeps per-second figures only as far back as it has been
	// asked, so a rule with a window must ask on every call, as evaluating
	// every rule each time does. It returns the first failing rule, or
	// nil; the runner fills its Case, Phase and At when left empty.
	Abort func(c *scenarios.Case, ph *scenarios.Phase, elapsed time.Duration, stats func(window time.Duration) results.Stats) *results.Aborted
	// Decisive reports whether every regressed() rule of the cases that
	// ran phase ph (their results so far, trials included) is decisive:
	// pass or regressed, not inconclusive.
	Decisive func(ph *scenarios.Phase, cases []*results.CaseResult) bool
}

func (c *Config) defaults() {
	if c.MaxPhase <= 0 {
		c.MaxPhase = time.Hour
	}
	if c.Grace <= 0 {
		c.Grace = 5 * time.Second
	}
	if c.Tick <= 0 {
		c.Tick = time.Second
	}
	if c.Clock == nil {
		c.Clock = WallClock{}
	}
}
