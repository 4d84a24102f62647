package runner

import (
	"fmt"
	"math"

	"github.com/loadgate/loadgate/scenarios"
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
func nextProbe(s *scenarios.Search, probes []Probe) (rate float64, kind string, done bool, reason string) {
	if len(probes) == 0 {
		return s.From, ProbeGrow, false, ""
	}
	last := probes[len(probes)-1]
	if last.Saturated {
		return 0, "", true, fmt.Sprintf("the generator saturated at %s: %s", fmtRate(last.Rate), last.Reason)
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
		return 0, "", true, fmt.Sprintf("the highest rate, %s, met the SLO", fmtRate(s.Max))
	case fail == 0:
		return min(2*pass, s.Max), ProbeGrow, false, ""
	case pass == 0:
		return 0, "", true, fmt.Sprintf("even %s failed the SLO", fmtRate(fail))
	case (fail-pass)/pass > s.Precision:
		return (pass + fail) / 2, ProbeBisect, false, ""
	case confirmed(probes, pass) < s.Confirm:
		return pass, ProbeConfirm, false, ""
	default:
		return 0, "", true, fmt.Sprintf("%s met the SLO, %s did not", fmtRate(pass), fmtRate(fail))
	}
}

// bracket is the search's bracket: the lowest rate that failed the SLO (0
// when none did) and the highest that passed below it (0 when none did).
// Saturated probes judge the generator, not the server, and count for
// neither.
func bracket(probes []Probe) (pass, fail float64) {
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
func confirmed(probes []Probe, rate float64) int {
	n := 0
	for _, p := range probes {
		if p.Kind == ProbeConfirm && p.Rate == rate && p.Passed && !p.Saturated {
			n++
		}
	}
	return n
}

// searchOutcome is what the probes of a finished search found.
func searchOutcome(probes []Probe, reason string) *SearchResult {
	pass, fail := bracket(probes)
	r := &SearchResult{Probes: probes, Capacity: pass, Pass: pass, Fail: fail, Reason: reason}
	if n := len(probes); n > 0 && probes[n-1].Saturated {
		r.LimitedByGenerator = true
	}
	return r
}

// fmtRate writes a rate as users write them: whole numbers without a
// fraction, others to a tenth.
func fmtRate(r float64) string {
	if r == math.Trunc(r) {
		return fmt.Sprintf("%.0f/s", r)
	}
	return fmt.Sprintf("%.1f/s", r)
}
