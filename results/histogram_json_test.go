package results

import (
	"encoding/json"
	"testing"
	"time"
)

func TestHistogramJSONRoundTrip(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var back Histogram
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{50, 99, 99.9, 100} {
		if a, b := h.Quantile(q), back.Quantile(q); a != b {
			t.Errorf("p%v: %v before, %v after the round trip", q, a, b)
		}
	}
	if back.Count() != 1000 {
		t.Errorf("count %d after round trip", back.Count())
	}
}

func TestHistogramClampsOutOfRange(t *testing.T) {
	h := NewHistogram()
	h.Record(0)
	h.Record(2 * time.Hour)
	if h.Count() != 2 {
		t.Fatalf("count = %d: out-of-range samples were lost", h.Count())
	}
	if h.Max() < 59*time.Minute {
		t.Errorf("max = %v, want clamped to about 1h", h.Max())
	}
}

func TestSummarizeMergesPhases(t *testing.T) {
	mk := func(n int64, lat time.Duration, elapsed time.Duration) *PhaseResult {
		p := &PhaseResult{Latency: NewHistogram(), Connect: NewHistogram(), Elapsed: elapsed}
		p.Requests, p.Succeeded = n, n
		for i := int64(0); i < n; i++ {
			p.Latency.Record(lat)
		}
		return p
	}
	s := Summarize([]*PhaseResult{mk(100, time.Millisecond, time.Second), mk(300, 3*time.Millisecond, time.Second)})
	if s.Requests != 400 || s.RPS != 200 {
		t.Errorf("requests %d rps %v, want 400 and 200", s.Requests, s.RPS)
	}
	if s.Latency.P50 < 3*time.Millisecond || s.Latency.Min > time.Millisecond+time.Microsecond {
		t.Errorf("latency = %+v", s.Latency)
	}
	if s.ErrorRate != 0 {
		t.Errorf("error rate %v", s.ErrorRate)
	}
}
