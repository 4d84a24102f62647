package history

import "math"

// Regression is a series whose newest segment is worse than the one
// before it by more than the tolerance: what `history check` fails on.
type Regression struct {
	Analysis *Analysis
	Change   Change // the change point that starts the newest segment
}

// Check lists the series of as whose newest segment is a change for the
// worse beyond tolerance (a fraction: 0.05 is 5 %) against the segment
// before it. An older regression that a later change point undid, or
// that a later improvement followed, is not reported: the level of main
// today is what a nightly job gates.
func Check(as []*Analysis, tolerance float64) []Regression {
	var out []Regression
	for _, a := range as {
		if len(a.Changes) == 0 {
			continue
		}
		ch := a.Changes[len(a.Changes)-1]
		if ch.Worse && math.Abs(ch.Magnitude) > tolerance {
			out = append(out, Regression{Analysis: a, Change: ch})
		}
	}
	return out
}
