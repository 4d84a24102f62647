package changepoint

import "math"

// minSegment is the fewest runs on either side of a split: a t-test needs
// two values on a side to know its spread.
const minSegment = 2

// bestSplit is the split of xs into xs[:tau] and xs[tau:] that maximises
// the E-divisive statistic (Matteson & James 2014, α = 1): the energy
// distance between the two sides, scaled by m·n/(m+n) so that a split
// near an end needs a larger difference. ok is false when xs is too short
// to split. It runs in O(len(xs)²), moving one value across the split at
// a time.
func bestSplit(xs []float64) (tau int, q float64, ok bool) {
	n := len(xs)
	if n < 2*minSegment {
		return 0, 0, false
	}
	dist := func(i, j int) float64 { return math.Abs(xs[i] - xs[j]) }
	// Sums of pairwise distances: within the left side, within the right
	// side, and across, for the split at tau.
	var left, right, across float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			right += dist(i, j)
		}
	}
	for t := 1; t <= n-minSegment; t++ {
		p := t - 1 // the value that moves from the right side to the left
		for i := 0; i < p; i++ {
			d := dist(i, p)
			left += d
			across -= d
		}
		for j := p + 1; j < n; j++ {
			d := dist(p, j)
			right -= d
			across += d
		}
		if t < minSegment {
			continue
		}
		m, k := float64(t), float64(n-t)
		stat := 2*across/(m*k) - left/(m*(m-1)/2) - right/(k*(k-1)/2)
		stat *= m * k / (m + k)
		if !ok || stat > q {
			tau, q, ok = t, stat, true
		}
	}
	return tau, q, ok
}

// divide finds the change points of one window: repeatedly the best split
// of any of its segments, kept while the t-test of the two sides it makes
// gives a p-value at most maxP. The indexes are into xs, ascending.
func divide(xs []float64, maxP float64) []int {
	bounds := []int{0, len(xs)} // segment edges, ascending
	for {
		bestAt, bestQ, found := 0, 0.0, false
		var seg int
		for s := 0; s+1 < len(bounds); s++ {
			lo, hi := bounds[s], bounds[s+1]
			tau, q, ok := bestSplit(xs[lo:hi])
			if ok && (!found || q > bestQ) {
				bestAt, bestQ, found, seg = lo+tau, q, true, s
			}
		}
		if !found {
			break
		}
		lo, hi := bounds[seg], bounds[seg+1]
		if tTestPValue(xs[lo:bestAt], xs[bestAt:hi]) > maxP {
			break
		}
		bounds = append(bounds[:seg+1], append([]int{bestAt}, bounds[seg+1:]...)...)
	}
	return bounds[1 : len(bounds)-1]
}
