package results

import (
	"math"
	"slices"
	"time"
)

// Spread summarises the trials behind a figure: rules see the median, the
// reports show how far the trials were apart.
type Spread struct {
	N         int           `json:"n"`
	RPSMedian float64       `json:"rps_median"`
	RPSMin    float64       `json:"rps_min"`
	RPSMax    float64       `json:"rps_max"`
	RPSCV     float64       `json:"rps_cv"` // coefficient of variation: stddev / mean
	P99Median time.Duration `json:"p99_median_ns"`
	P99Min    time.Duration `json:"p99_min_ns"`
	P99Max    time.Duration `json:"p99_max_ns"`
	// RPS holds every trial's rate, for rank tests against a baseline.
	RPS []float64 `json:"rps"`
}

// spread summarises trials; nil when there are fewer than two.
func spread(trials []Trial) *Spread {
	if len(trials) < 2 {
		return nil
	}
	rps := make([]float64, len(trials))
	p99 := make([]time.Duration, len(trials))
	var sum float64
	for i, t := range trials {
		rps[i], p99[i] = t.RPS, t.P99
		sum += t.RPS
	}
	mean := sum / float64(len(rps))
	var sq float64
	for _, r := range rps {
		sq += (r - mean) * (r - mean)
	}
	s := &Spread{N: len(trials), RPS: slices.Clone(rps)}
	if mean > 0 {
		s.RPSCV = math.Sqrt(sq/float64(len(rps)-1)) / mean
	}
	slices.Sort(rps)
	slices.Sort(p99)
	s.RPSMin, s.RPSMax, s.RPSMedian = rps[0], rps[len(rps)-1], median(rps)
	s.P99Min, s.P99Max = p99[0], p99[len(p99)-1]
	mid := len(p99) / 2
	if len(p99)%2 == 1 {
		s.P99Median = p99[mid]
	} else {
		s.P99Median = (p99[mid-1] + p99[mid]) / 2
	}
	return s
}

// median of sorted values.
func median(sorted []float64) float64 {
	mid := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[mid]
	}
	return (sorted[mid-1] + sorted[mid]) / 2
}
