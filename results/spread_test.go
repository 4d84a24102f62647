package results

import (
	"testing"
	"time"
)

func TestSpread(t *testing.T) {
	s := spread([]Trial{{RPS: 100, P99: 3 * time.Millisecond}, {RPS: 300, P99: time.Millisecond}, {RPS: 200, P99: 2 * time.Millisecond}})
	if s.RPSMedian != 200 || s.RPSMin != 100 || s.RPSMax != 300 || s.P99Median != 2*time.Millisecond {
		t.Errorf("spread = %+v", s)
	}
	// stddev of {100, 200, 300} is 100 (sample), mean 200.
	if s.RPSCV < 0.499 || s.RPSCV > 0.501 {
		t.Errorf("cv = %v, want 0.5", s.RPSCV)
	}
	if spread([]Trial{{RPS: 1}}) != nil {
		t.Error("a single trial has no spread")
	}
}
