package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// defaultProbeWarmup is a probe's unmeasured lead-in when the scenario
// does not say (SPEC §14): long enough for connections to open and the
// server's queues to reach the new rate.
const defaultProbeWarmup = time.Second

// errNoSLOJudge fails a run with a search phase but no way to judge its
// probes: searching blind would only burn CI minutes.
var errNoSLOJudge = errors.New("a search phase needs its SLO judged, and the run has no SLO judge")

// checkJudge refuses, before any load, a scenario the run's Judge cannot
// carry out.
func checkJudge(sc *scenarios.Scenario, j Judge) error {
	if j.SLO != nil {
		return nil
	}
	for _, c := range sc.Cases {
		for _, ph := range c.Phases {
			if ph.Search != nil {
				return fmt.Errorf("case %q: phase %q: %w", c.ID, ph.Name, errNoSLOJudge)
			}
		}
	}
	return nil
}

// runOnce runs phase ph of case c once: a capacity search, or one load.
func runOnce(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cr *caseRun, label string) (*results.PhaseResult, error) {
	if ph.Search != nil {
		return runSearch(ctx, scenario, c, ph, cr, label)
	}
	return runPhase(ctx, scenario, c, ph, cr, label)
}

// runSearch runs a capacity-search phase: probes at the rates nextProbe
// picks until it is done. The phase's counters and histograms are the
// measured parts of every probe together, so it reads like any phase;
// the probes themselves and what they found are in Search.
func runSearch(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cr *caseRun, label string) (*results.PhaseResult, error) {
	if cr.Judge.SLO == nil {
		return nil, errNoSLOJudge
	}
	var probes []results.Probe
	var measured []*results.PhaseResult
	var aborted *results.Aborted
	start := cr.Clock.Now()
	reason := "interrupted"
	for ctx.Err() == nil {
		rate, kind, done, why := nextProbe(ph.Search, probes)
		if done {
			reason = why
			break
		}
		r, drain, a, err := runProbe(ctx, scenario, c, ph, cr, probeLabel(label, len(probes)+1, kind, rate), rate, start, drainFrom(probes))
		if err != nil {
			return nil, err
		}
		if r != nil {
			measured = append(measured, r)
		}
		if aborted = a; r == nil || a != nil || r.Interrupted {
			// A cut-short probe did not hold its rate for its step: its
			// figures are kept, but it is no verdict.
			break
		}
		p := judgeProbe(c, ph, cr.scenarioRun, kind, rate, r)
		p.Drain = drain
		probes = append(probes, p)
		ev := cr.Logger.Info().Str("case", c.ID).Str("phase", ph.Name).Str("kind", kind).Float64("rate", rate).
			Float64("achieved", p.Achieved).Dur("p99", p.P99).Bool("passed", p.Passed).Bool("saturated", p.Saturated).
			Str("reason", p.Reason).Int64("left", p.Left)
		if drain != nil {
			ev = ev.Dur("drain_pause", drain.Pause).Str("drain", drain.Note)
		}
		ev.Msg("probe judged")
	}
	if aborted != nil {
		reason = fmt.Sprintf("stopped by the abort rule %q", aborted.Name)
	}
	res := mergeProbes(ph, c, measured)
	res.Search = searchOutcome(probes, reason)
	res.Aborted = aborted
	res.Interrupted = ctx.Err() != nil && aborted == nil
	return res, nil
}

func probeLabel(label string, n int, kind string, rate float64) string {
	l := fmt.Sprintf("probe %d, %s %s", n, kind, units.FormatRate(rate))
	if label != "" {
		l = label + ", " + l
	}
	return l
}

// runProbe loads the case at rate: its warm-up, unmeasured, then its
// step; the step's result is nil when the run stopped before it. After a
// failed probe, prev, the warm-up first makes sure the server has served
// what prev left (warmUp), and says how in the ProbeDrain. An abort rule
// that stopped either comes back with its time counted from since, the
// search's start.
func runProbe(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cr *caseRun, label string, rate float64, since time.Time, prev *results.Probe) (*results.PhaseResult, *results.ProbeDrain, *results.Aborted, error) {
	load := scenarios.Phase{Name: ph.Name, Pos: ph.Pos, Warmup: true, Duration: probeWarmup(ph.Search),
		Rate: scenarios.Rate{From: rate, To: rate}, MaxInFlight: ph.Search.MaxInFlight, GracefulStop: ph.GracefulStop}
	drain, a, err := warmUp(ctx, scenario, c, ph, cr, &load, label, since, prev)
	if err != nil || a != nil || ctx.Err() != nil {
		return nil, drain, a, err
	}
	load.Warmup, load.Duration = false, ph.Search.Step
	r, err := runPhase(ctx, scenario, c, &load, cr, label)
	if err != nil {
		return nil, nil, nil, err
	}
	return r, drain, sinceSearch(r, since), nil
}

// probeWarmup is a probe's warm-up, or the default.
func probeWarmup(s *scenarios.Search) time.Duration {
	if s.ProbeWarmup > 0 {
		return s.ProbeWarmup
	}
	return defaultProbeWarmup
}

// warmUp runs the warm-up load of a probe. After a failed probe prev it
// first waits idle for drainPause, then runs the warm-up again while
// warmupNext asks for it; the ProbeDrain (nil without prev) says what was
// done.
func warmUp(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cr *caseRun, load *scenarios.Phase, label string, since time.Time, prev *results.Probe) (*results.ProbeDrain, *results.Aborted, error) {
	var drain *results.ProbeDrain
	if prev != nil {
		drain = &results.ProbeDrain{Pause: drainPause(prev)}
		if drain.Pause > 0 && !sleepCtx(ctx, cr.Clock, drain.Pause) {
			return drain, nil, nil
		}
	}
	var pts []results.Second
	for n := 0; ; n++ {
		l := label + ", warm-up"
		if n > 0 {
			l = fmt.Sprintf("%s, warm-up %d", label, n+1)
		}
		w, err := runPhase(ctx, scenario, c, load, cr, l)
		if err != nil {
			return drain, nil, err
		}
		if w.Aborted != nil || ctx.Err() != nil {
			return drain, sinceSearch(w, since), nil
		}
		if drain == nil {
			return nil, nil, nil
		}
		pts = append(pts, sendingPoints(w.Series, cr.Tick, load.Duration)...)
		extend, steady, note := warmupNext(load.Rate.From, cr.Tick, precisionOf(ph), pts, w.Dropped > 0, n)
		if !extend {
			drain.Extensions, drain.Steady, drain.Note = n, steady, note
			return drain, nil, nil
		}
	}
}

// sinceSearch is r's abort, if any, timed from the search's start rather
// than the probe's.
func sinceSearch(r *results.PhaseResult, since time.Time) *results.Aborted {
	if r.Aborted == nil {
		return nil
	}
	a := *r.Aborted
	a.At += r.Start.Sub(since)
	return &a
}

// judgeProbe turns the measured step of a probe into its verdict: the
// generator's saturation first (the rate was not delivered, so the SLO
// has nothing to say), then the SLO over the step's figures.
func judgeProbe(c *scenarios.Case, ph *scenarios.Phase, run *scenarioRun, kind string, rate float64, r *results.PhaseResult) results.Probe {
	st := results.Summarize([]*results.PhaseResult{r})
	p := results.Probe{Kind: kind, Rate: rate, Achieved: st.RPS, Requests: r.Requests, Failed: r.Failed,
		ErrorRate: st.ErrorRate, P50: st.Latency.P50, P99: st.Latency.P99, Start: r.Start, Elapsed: r.Elapsed,
		Left: leftBehind(r)}
	if r.Generator.Saturated && !run.ignoreSaturation {
		p.Saturated, p.Reason = true, r.Generator.Reason
		return p
	}
	passed, actual, err := run.Judge.SLO(c, ph, st)
	switch {
	case err != nil:
		p.Reason = err.Error()
	case !passed:
		p.Reason = actual
	case !keptUp(rate, p.Achieved, precisionOf(ph), r.Elapsed):
		p.Reason = fmt.Sprintf("%s (the SLO held) but the server answered %.0f/s of the %.0f/s sent: short by more than the %.3g%% precision, so its backlog grows and a longer step would break the SLO",
			actual, p.Achieved, rate, 100*precisionOf(ph))
	default:
		p.Passed = true
	}
	return p
}

// precisionOf is the precision of ph's search, or the default.
func precisionOf(ph *scenarios.Phase) float64 {
	if ph.Search != nil && ph.Search.Precision > 0 {
		return ph.Search.Precision
	}
	return scenarios.DefaultPrecision
}

// keptUp reports whether a probe's server answered the rate it was sent,
// within the search's precision. A server past its capacity can still meet
// a latency SLO over a short step while its queue is young; its throughput
// gives it away at once. A step too short to count the rate to that
// precision (the requests still in flight at its end alone would be more
// than a twentieth of it) gives no evidence either way.
func keptUp(rate, achieved, precision float64, step time.Duration) bool {
	if rate*step.Seconds() < 20/precision {
		return true
	}
	return achieved >= rate*(1-precision)
}

// mergeProbes folds the measured steps of a search's probes into its
// phase's result. Unlike trials, each step is not kept as a Trial: the
// probes describe them (SearchResult.Probes).
func mergeProbes(ph *scenarios.Phase, c *scenarios.Case, measured []*results.PhaseResult) *results.PhaseResult {
	if len(measured) == 0 {
		res := newPhaseResult(ph, &c.Target, requestMix(&c.Target))
		return res
	}
	m := results.MergeTrialRuns(measured)
	m.Name, m.Trials, m.Rate = ph.Name, nil, nil
	if m.EndedDetail == "" {
		// Each probe ran its step; the search ended because it decided.
		m.Ended = results.EndSearch
	}
	return m
}
