// Package changepoint finds where a series of runs moved from one level
// to another: E-divisive means with a Student t-test for significance in
// place of random permutations, so that one series always gives the same
// change points.
package changepoint

import (
	"math"
	"slices"

	"github.com/loadgate/loadgate/assertions/regression"
)

// Options are the detection's parameters; zero values take the defaults.
type Options struct {
	// Window is how many consecutive runs one pass of E-divisive looks
	// at; windows overlap by half. Default 50.
	Window int
	// PValue is the largest p-value of the t-test between the two
	// segments around a change point that keeps it. Default 0.001.
	PValue float64
	// MinMagnitude drops change points that move the level by less than
	// this share of it (0.05 is 5 %). Default 0: none dropped for size.
	MinMagnitude float64
}

// Defaults of Options.
const (
	DefaultWindow = 50
	DefaultPValue = 0.001
)

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	o.Window = max(o.Window, 2*minSegment)
	if o.PValue <= 0 {
		o.PValue = DefaultPValue
	}
	return o
}

// ChangePoint is where a series changed level.
type ChangePoint struct {
	Index int // the first value at the new level
	// PValue is that of the t-test between the segments either side,
	// corrected for the places the split was chosen among.
	PValue float64
	// Before and After are the means of the segments either side.
	Before, After float64
}

// Detect returns the change points of xs, ascending. It is a pure
// function: the same values and options always give the same result.
// A series holding a value that is not a finite number has none.
//
// The series is read in windows of o.Window runs, each cut by
// E-divisive with a loose p-value (ten times o.PValue) so that a weak
// change near a window's edge is not lost; then change points are
// dropped, weakest first, until each is significant at o.PValue and at
// least o.MinMagnitude against the segments either side of it in the
// whole series. The cost is O(len(xs)·o.Window).
func Detect(xs []float64, o Options) []ChangePoint {
	o = o.withDefaults()
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	}
	return prune(xs, candidates(xs, o), o)
}

// candidates are the change points found window by window. A window
// starts half a window after the one before, or at the last change point
// it found when that is further on.
func candidates(xs []float64, o Options) []int {
	var out []int
	step := o.Window / 2
	for start := 0; start < len(xs); {
		end := min(start+o.Window, len(xs))
		found := divide(xs[start:end], min(1, o.PValue*10))
		for _, i := range found {
			out = append(out, start+i)
		}
		if end == len(xs) {
			break
		}
		next := start + step
		if len(found) > 0 {
			next = max(next, start+found[len(found)-1])
		}
		start = next
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// prune drops the weakest change point, by p-value and then by
// magnitude, while any fails o's thresholds against its neighbours, and
// describes those that remain.
func prune(xs []float64, idx []int, o Options) []ChangePoint {
	for {
		cps := describe(xs, idx)
		weakest := -1
		for i, cp := range cps {
			if !failing(cp, o) {
				continue
			}
			if weakest < 0 || weaker(cp, cps[weakest]) {
				weakest = i
			}
		}
		if weakest < 0 {
			return cps
		}
		idx = slices.Delete(idx, weakest, weakest+1)
	}
}

func failing(cp ChangePoint, o Options) bool {
	return cp.PValue > o.PValue || magnitude(cp) < o.MinMagnitude
}

func weaker(a, b ChangePoint) bool {
	if a.PValue != b.PValue {
		return a.PValue > b.PValue
	}
	return magnitude(a) < magnitude(b)
}

// magnitude is the relative change of level; a move away from a zero
// level (an error rate leaving 0) counts as any size.
func magnitude(cp ChangePoint) float64 {
	if cp.Before == 0 {
		if cp.After == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(cp.After-cp.Before) / math.Abs(cp.Before)
}

// describe tests each change point of idx against the segments either
// side of it, bounded by its neighbours. The t-test's p-value is
// multiplied by the number of places the split could have been put in
// that stretch (Bonferroni): the split was chosen as the best of them, and
// tested as if it were the only one it would find a change in noise in
// one series of 80 runs out of 30, and several in a series of 1,000.
func describe(xs []float64, idx []int) []ChangePoint {
	out := make([]ChangePoint, len(idx))
	for i, at := range idx {
		lo, hi := 0, len(xs)
		if i > 0 {
			lo = idx[i-1]
		}
		if i+1 < len(idx) {
			hi = idx[i+1]
		}
		before, _ := regression.MeanVar(xs[lo:at])
		after, _ := regression.MeanVar(xs[at:hi])
		places := max(1, hi-lo-2*minSegment+1)
		p := min(1, tTestPValue(xs[lo:at], xs[at:hi])*float64(places))
		out[i] = ChangePoint{Index: at, PValue: p, Before: before, After: after}
	}
	return out
}
