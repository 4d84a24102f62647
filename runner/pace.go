package runner

import (
	"math"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// Pacing of the open model. Arrivals follow a rate that is constant or ramps
// linearly from r.From to r.To over the phase's duration d, so the number of
// arrivals due by time t is
//
//	N(t) = From·t + (To−From)·t² / (2d)
//
// and arrival i (0-based) is due at the t where N(t) = i. Every due time is
// computed from i alone, never from the previous send, so a late scheduler
// catches up with a burst instead of drifting or silently skipping arrivals.

// arrivalOffset is when arrival i is due, counted from the phase start.
func arrivalOffset(r scenarios.Rate, d time.Duration, i int64) time.Duration {
	if i <= 0 {
		return 0
	}
	secs := d.Seconds()
	n := float64(i)
	var t float64
	if r.From == r.To || secs <= 0 {
		t = n / r.From
	} else {
		a := (r.To - r.From) / (2 * secs)
		b := r.From
		// The root of a·t² + b·t − n = 0 in the stable form, which also holds
		// when a < 0 (a falling ramp) and when b = 0 (a ramp from zero).
		t = 2 * n / (b + math.Sqrt(b*b+4*a*n))
	}
	if math.IsInf(t, 0) || math.IsNaN(t) || t > float64(math.MaxInt64)/1e9 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(t * 1e9)
}

// arrivalsDue is how many arrivals are due strictly before t: the count of
// i ≥ 0 with arrivalOffset(i) < t.
func arrivalsDue(r scenarios.Rate, d time.Duration, t time.Duration) int64 {
	if t <= 0 {
		return 0
	}
	secs := t.Seconds()
	var n float64
	if r.From == r.To || d <= 0 {
		n = r.From * secs
	} else {
		n = r.From*secs + (r.To-r.From)*secs*secs/(2*d.Seconds())
	}
	// Arrival 0 is due at 0, so any t > 0 has at least one; the epsilon keeps
	// float error at an exact arrival time from counting it early.
	return max(1, int64(math.Ceil(n-1e-9)))
}

// rampStart is when closed-model worker w of a phase starts. With ramp_up
// the workers start evenly over it; with a concurrency ramp {from, to},
// `from` workers start at once and the rest join evenly across the phase so
// that all `to` are running before it ends.
func rampStart(ph *scenarios.Phase, w int) time.Duration {
	switch {
	case ph.ConcurrencyFrom > 0 && ph.Concurrency > ph.ConcurrencyFrom && ph.Duration > 0:
		if w < ph.ConcurrencyFrom {
			return 0
		}
		steps := int64(ph.Concurrency - ph.ConcurrencyFrom + 1)
		return time.Duration(int64(ph.Duration) * int64(w+1-ph.ConcurrencyFrom) / steps)
	case ph.RampUp > 0:
		return time.Duration(int64(ph.RampUp) * int64(w) / int64(ph.Concurrency))
	default:
		return 0
	}
}
