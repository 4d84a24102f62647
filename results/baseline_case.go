package results

import (
	"math"
	"slices"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// BaselineCase is what a rule sees of a baseline case: its figures, and one
// entry per trial for regressed().
type BaselineCase struct {
	Stats  Stats
	Trials []Trial
	// Runs, when the baseline is made of several runs (main's history),
	// holds one entry per run with that run's medians: regressed() then
	// also weighs a difference against main's run-to-run spread.
	Runs []Trial
	// Server is the case's server usage; nil when none was sampled, which
	// skips the rules that read baseline.server or baseline.host.
	Server *Usage
	// Load is the fingerprint of the load the case measured; nil when it
	// is unknown (a document written before loads had one), which
	// compares as if alike.
	Load *scenarios.LoadShape
	// Undecided, when set, says why no comparison with this case can
	// decide a rule (too few runs of main at its latest level, say):
	// every regressed() it answers is inconclusive.
	Undecided string
}

// NewBaselineCase summarises measured phases for a Baseline to return.
func NewBaselineCase(phases []*PhaseResult) BaselineCase {
	return BaselineCase{Stats: Summarize(phases), Trials: TrialsOf(phases)}
}

// TrialsOf lists the trials of phases in order. A phase that ran once
// counts as one trial, so a run without trials: N still compares, though a
// single sample can never be significant.
func TrialsOf(phases []*PhaseResult) []Trial {
	var out []Trial
	for _, p := range phases {
		if len(p.Trials) > 0 {
			out = append(out, p.Trials...)
			continue
		}
		t := Trial{Requests: p.Requests, Failed: p.Failed, Dropped: p.Dropped, Elapsed: p.Elapsed}
		if p.Search != nil {
			t.Capacity = p.Search.Capacity
		}
		if s := p.Elapsed.Seconds(); s > 0 {
			t.RPS = float64(p.Requests) / s
		}
		if p.Latency != nil {
			t.P50, t.P99 = p.Latency.Quantile(50), p.Latency.Quantile(99)
		}
		out = append(out, t)
	}
	return out
}

// Medians are a case's figures as regressed() compares them: the median
// of its trials (TrialsOf), so that a report's delta is the verdict's.
// With one trial they are that trial's, which are all its requests'.
type Medians struct {
	Trials    int
	RPS       float64
	P50, P99  time.Duration
	ErrorRate float64
}

// TrialMedians gives the Medians of phases.
func TrialMedians(phases []*PhaseResult) Medians {
	trials := TrialsOf(phases)
	of := func(fig func(Trial) float64) float64 {
		if len(trials) == 0 {
			return 0
		}
		xs := make([]float64, len(trials))
		for i, t := range trials {
			xs[i] = fig(t)
		}
		slices.Sort(xs)
		return median(xs)
	}
	return Medians{
		Trials: len(trials), RPS: of(func(t Trial) float64 { return t.RPS }),
		P50:       time.Duration(math.Round(of(func(t Trial) float64 { return float64(t.P50) }))),
		P99:       time.Duration(math.Round(of(func(t Trial) float64 { return float64(t.P99) }))),
		ErrorRate: of(Trial.ErrorRate),
	}
}
