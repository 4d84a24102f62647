package results

import (
	"math"
	"testing"
	"time"
)

// TestCumulativeCounts: the samples at or below each bound are those of
// the buckets whose highest value is at or below it, as Buckets lists
// them; the last count is every sample, a sample at a bound counts there,
// and a bound below every sample counts none.
func TestCumulativeCounts(t *testing.T) {
	h := NewHistogram()
	samples := []time.Duration{
		0, time.Microsecond, 99 * time.Microsecond, 100 * time.Microsecond, 101 * time.Microsecond,
		time.Millisecond, 1500 * time.Microsecond, 2 * time.Second, 90 * time.Second, 2 * time.Hour,
	}
	for _, d := range samples {
		h.Record(d)
	}
	bounds := []time.Duration{500 * time.Nanosecond, time.Microsecond, 100 * time.Microsecond, time.Millisecond, time.Second, time.Minute, time.Hour}
	got := make([]int64, len(bounds))
	sum := h.CumulativeCounts(bounds, got)
	if want := h.Mean().Seconds() * float64(h.Count()); math.Abs(sum-want) > want*1e-9 {
		t.Errorf("sum = %v s, want %v s: the mean times the count", sum, want)
	}

	want := make([]int64, len(bounds))
	h.Buckets(func(upTo time.Duration, count int64) {
		for i, b := range bounds {
			if upTo <= b {
				want[i] += count
			}
		}
	})
	for i := range bounds {
		if got[i] != want[i] {
			t.Errorf("at or below %v: %d, want %d (as Buckets lists them)", bounds[i], got[i], want[i])
		}
	}
	// 0 and 1µs record as 1µs; 2h is clamped to 1h, whose bucket reaches
	// past the last bound.
	for i, n := range []int64{0, 2, 4, 6, 7, 8, 9} {
		if got[i] != n {
			t.Errorf("at or below %v: %d, want %d", bounds[i], got[i], n)
		}
	}
}

func TestCumulativeCountsOfAnEmptyHistogram(t *testing.T) {
	counts := []int64{7, 7}
	sum := NewHistogram().CumulativeCounts([]time.Duration{time.Millisecond, time.Second}, counts)
	if counts[0] != 0 || counts[1] != 0 || sum != 0 {
		t.Fatalf("counts = %v, sum %v; want zeros", counts, sum)
	}
}
