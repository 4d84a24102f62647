package results

import (
	"testing"
	"time"
)

func TestMergePhaseMergesIterations(t *testing.T) {
	part := func(n, ok int64, lat time.Duration) *PhaseResult {
		it := &IterationResult{Iterations: n, Succeeded: ok, Failed: n - ok, Latency: NewHistogram()}
		for range ok {
			it.Latency.Record(lat)
		}
		return &PhaseResult{Name: "m", Latency: NewHistogram(), FailedLatency: NewHistogram(),
			Connect: NewHistogram(), Iterations: it}
	}
	m := mergePhase([]*PhaseResult{part(10, 9, time.Millisecond), part(4, 4, 5*time.Millisecond), part(0, 0, 0)}, nil)
	it := m.Iterations
	if it == nil || it.Iterations != 14 || it.Succeeded != 13 || it.Failed != 1 || it.Latency.Count() != 13 {
		t.Fatalf("merged iterations = %+v, want 14: 13 succeeded, 1 failed", it)
	}
	if p := it.Latency.Quantile(100); p < 5*time.Millisecond {
		t.Errorf("merged p100 = %v, want the second segment's 5ms", p)
	}
	plain := &PhaseResult{Name: "m", Latency: NewHistogram(), FailedLatency: NewHistogram(), Connect: NewHistogram()}
	if m := mergePhase([]*PhaseResult{plain, plain}, nil); m.Iterations != nil {
		t.Errorf("segments without a flow merged into iterations %+v", m.Iterations)
	}
}
