package runner

import (
	"fmt"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// Probe kinds, in the order a search uses them.
const (
	ProbeGrow    = "grow"
	ProbeBisect  = "bisect"
	ProbeConfirm = "confirm"
)

// maxProbes bounds a search whatever its settings: with doubling and a
// precision above zero a search ends far sooner, so reaching it means the
// probes contradict each other (noise around the SLO) and more would not help.
const maxProbes = 64

// nextProbe decides a capacity search's next step from the probes run so
// far, and nothing else, so the whole search is testable without a clock:
// the rate and kind of the next probe, or done with the reason it ended.
//
// The search grows by doubling from From (capped at Max) until a probe
// fails; bisects [highest pass, lowest fail] until (fail − pass) / pass ≤
// Precision; then re-runs the found rate Confirm times. A failed
// confirmation is a failure like any other: it lowers the bracket's top and
// the bisection resumes below it. A saturated probe ends the search, since
// the generator, not the server, set the limit.
func nextProbe(s *scenarios.Search, probes []results.Probe) (rate float64, kind string, done bool, reason string) {
	if len(probes) == 0 {
		return s.From, ProbeGrow, false, ""
	}
	last := probes[len(probes)-1]
	if last.Saturated {
		return 0, "", true, fmt.Sprintf("the generator saturated at %s: %s", units.FormatRate(last.Rate), last.Reason)
	}
	if len(probes) >= maxProbes {
		return 0, "", true, fmt.Sprintf("stopped after %d probes without settling", len(probes))
	}
	pass, fail := bracket(probes)
	switch {
	case fail == 0 && pass == 0:
		return 0, "", true, "no probe was judged"
	case fail == 0 && pass >= s.Max:
		if confirmed(probes, pass) < s.Confirm {
			return pass, ProbeConfirm, false, ""
		}
		return 0, "", true, fmt.Sprintf("the highest rate, %s, met the SLO", units.FormatRate(s.Max))
	case fail == 0:
		return min(2*pass, s.Max), ProbeGrow, false, ""
	case pass == 0:
		return 0, "", true, fmt.Sprintf("even %s failed the SLO", units.FormatRate(fail))
	case (fail-pass)/pass > s.Precision:
		return (pass + fail) / 2, ProbeBisect, false, ""
	case confirmed(probes, pass) < s.Confirm:
		return pass, ProbeConfirm, false, ""
	default:
		return 0, "", true, fmt.Sprintf("%s met the SLO, %s did not", units.FormatRate(pass), units.FormatRate(fail))
	}
}

// bracket is the search's bracket: the lowest rate that failed the SLO (0
// when none did) and the highest that passed below it (0 when none did).
// Saturated probes judge the generator, not the server, and count for
// neither.
func bracket(probes []results.Probe) (pass, fail float64) {
	for _, p := range probes {
		if !p.Saturated && !p.Passed && (fail == 0 || p.Rate < fail) {
			fail = p.Rate
		}
	}
	for _, p := range probes {
		if !p.Saturated && p.Passed && p.Rate > pass && (fail == 0 || p.Rate < fail) {
			pass = p.Rate
		}
	}
	return pass, fail
}

// confirmed counts the passed confirmations of rate.
func confirmed(probes []results.Probe, rate float64) int {
	n := 0
	for _, p := range probes {
		if p.Kind == ProbeConfirm && p.Rate == rate && p.Passed && !p.Saturated {
			n++
		}
	}
	return n
}

// searchOutcome is what the probes of a finished search found.
func searchOutcome(probes []results.Probe, reason string) *results.SearchResult {
	pass, fail := bracket(probes)
	r := &results.SearchResult{Probes: probes, Capacity: pass, Pass: pass, Fail: fail, Reason: reason}
	if n := len(probes); n > 0 && probes[n-1].Saturated {
		r.LimitedByGenerator = true
	}
	return r
}

// Draining between probes. Against a server with an unbounded queue (no
// 503: Tomcat's executor, an asyncio server) an overloaded probe leaves a
// backlog the server goes on serving after the probe has ended, and a
// probe started behind it measures that backlog, not its own rate: below
// capacity it drains only at capacity − rate, seconds to minutes near the
// knee. So the probe after a failed one waits idle for the server to
// serve what was left (drainPause), then warms up until its last two
// seconds are steady (warmupNext), both bounded.

// maxWarmupExtensions bounds how many times a probe's warm-up is run
// again while it still shows a backlog draining.
const maxWarmupExtensions = 4

// maxDrainPause bounds the idle pause after a failed probe, whatever it
// left: the target's timeout bounds what a client waits for, and a server
// that needs longer is measured as it is, with its warm-up's verdict said.
const maxDrainPause = 30 * time.Second

// drainFrom is the probe a probe must drain the backlog of: the last one,
// if it failed (its SLO, or keeping up); nil otherwise. A probe that met
// the SLO and kept up with its rate left no more than its usual few
// requests in flight.
func drainFrom(probes []results.Probe) *results.Probe {
	if len(probes) == 0 {
		return nil
	}
	if last := &probes[len(probes)-1]; !last.Passed && !last.Saturated {
		return last
	}
	return nil
}

// drainPause is how long to wait, idle, for the server to serve the Left
// requests of probe p: at its achieved rate, which for a probe past
// capacity is the server's throughput (at its requested rate if it
// measured none), plus a tenth for the timers of a busy machine; at most
// maxDrainPause.
func drainPause(p *results.Probe) time.Duration {
	if p == nil || p.Left <= 0 {
		return 0
	}
	rate := p.Achieved
	if rate <= 0 {
		rate = p.Rate
	}
	if rate <= 0 {
		return maxDrainPause
	}
	d := time.Duration(1.1 * float64(p.Left) / rate * float64(time.Second))
	return min(d, maxDrainPause)
}

// leftBehind counts the requests r's step left waiting for an answer:
// the in-flight count of its last point (which the old abandoned and the
// new graceful stop leaves unfinished), or its unfinished errors.
func leftBehind(r *results.PhaseResult) int64 {
	var n int64
	if len(r.Series) > 0 {
		n = r.Series[len(r.Series)-1].InFlight
	}
	return max(n, r.Errors.Unfinished)
}

// sendingPoints are the points of a warm-up's series that cover a whole
// tick of its sending time: not a last partial one, nor those of its
// graceful stop, whose arrivals had ended.
func sendingPoints(series []results.Second, tick, sending time.Duration) []results.Second {
	var pts []results.Second
	for _, pt := range series {
		if time.Duration(pt.At+1)*tick <= sending+tick/4 {
			pts = append(pts, pt)
		}
	}
	return pts
}

// A warm-up's trend, between two consecutive points of its series.
const (
	trendSteady   = iota // neither growing nor draining
	trendDraining        // an earlier backlog is still being served
	trendGrowing         // the rate itself is over capacity
)

// latencyOf is a point's latency: its p99, or the age of its oldest
// request still waiting when that is more, since that request's latency
// will be at least its age.
func latencyOf(pt results.Second) time.Duration { return max(pt.P99, pt.OldestWait) }

// trendSlack is how much a latency may move between two steady points:
// half again, plus a floor for the noise of fast ones.
const trendSlack = 2 * time.Millisecond

// warmupTrend compares points a and b (the one after) of a warm-up at
// rate, each one tick long, with tolerance tol (the search's precision).
// Draining: fewer requests waiting, latency falling, or more answered than
// arrive. Growing: more requests waiting, latency rising, or fewer
// answered than arrive. Counts within max(tol × arrivals a tick, 2) of
// each other, and latencies within half again plus trendSlack, are the
// same.
func warmupTrend(rate float64, tick time.Duration, tol float64, a, b results.Second) (trend int, why string) {
	n := rate * tick.Seconds()
	slack := max(tol*n, 2)
	la, lb := latencyOf(a), latencyOf(b)
	switch {
	case float64(a.InFlight-b.InFlight) > slack:
		return trendDraining, fmt.Sprintf("requests waiting fell from %d to %d", a.InFlight, b.InFlight)
	case la > lb+lb/2+trendSlack:
		return trendDraining, fmt.Sprintf("latency fell from %v to %v", la, lb)
	case float64(b.Completed) > n+slack:
		return trendDraining, fmt.Sprintf("%d answered in a tick of %.0f arrivals", b.Completed, n)
	case float64(b.InFlight-a.InFlight) > slack:
		return trendGrowing, fmt.Sprintf("requests waiting grew from %d to %d", a.InFlight, b.InFlight)
	case lb > la+la/2+trendSlack:
		return trendGrowing, fmt.Sprintf("latency grew from %v to %v", la, lb)
	case float64(b.Completed) < n-slack:
		return trendGrowing, fmt.Sprintf("%d answered in a tick of %.0f arrivals", b.Completed, n)
	}
	return trendSteady, ""
}

// warmupNext decides, after each run of a draining probe's warm-up,
// whether to run it again: pts are the sending points of its runs so far,
// in order, extensions how many runs beyond the first there were, and
// dropped whether max_in_flight turned arrivals away. It extends while
// there are fewer than two points to compare or the last two show a
// backlog draining, at most maxWarmupExtensions times. A warm-up whose
// backlog grows, or that dropped arrivals, is over capacity by its own
// rate: waiting longer would only grow it, so the step is measured at
// once. note says what was done, for the probe's result.
func warmupNext(rate float64, tick time.Duration, tol float64, pts []results.Second, dropped bool, extensions int) (extend, steady bool, note string) {
	done := "warm-up steady"
	if extensions > 0 {
		done = fmt.Sprintf("warm-up extended %d× until steady", extensions)
	}
	if dropped {
		return false, false, "max_in_flight turned arrivals away in the warm-up: the rate is over capacity, measured at once"
	}
	if len(pts) < 2 {
		if extensions < maxWarmupExtensions {
			return true, false, ""
		}
		return false, false, fmt.Sprintf("warm-up extended %d× without two whole ticks to compare: measured anyway", extensions)
	}
	trend, why := warmupTrend(rate, tick, tol, pts[len(pts)-2], pts[len(pts)-1])
	switch {
	case trend == trendSteady:
		return false, true, done
	case trend == trendGrowing:
		return false, false, fmt.Sprintf("backlog growing in the warm-up (%s): the rate is over capacity, measured at once", why)
	case extensions < maxWarmupExtensions:
		return true, false, ""
	default:
		return false, false, fmt.Sprintf("warm-up extended %d× and still draining (%s): measured anyway", extensions, why)
	}
}
