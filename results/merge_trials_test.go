package results

import (
	"testing"
	"time"
)

func iterResult(n, ok int64, lat time.Duration) *IterationResult {
	r := &IterationResult{Iterations: n, Succeeded: ok, Failed: n - ok, Latency: NewHistogram()}
	for range ok {
		r.Latency.Record(lat)
	}
	return r
}

func TestMergeTrialsMergesIterations(t *testing.T) {
	phase := func(it *IterationResult) *PhaseResult {
		return &PhaseResult{Latency: NewHistogram(), FailedLatency: NewHistogram(), Connect: NewHistogram(), Iterations: it}
	}
	for _, tc := range []struct {
		name string
		runs []*IterationResult
		want *IterationResult // latency: count only
	}{
		{"no flow", []*IterationResult{nil, nil}, nil},
		{"two trials", []*IterationResult{iterResult(10, 8, time.Millisecond), iterResult(5, 5, 3*time.Millisecond)},
			&IterationResult{Iterations: 15, Succeeded: 13, Failed: 2}},
	} {
		var runs []*PhaseResult
		for _, it := range tc.runs {
			runs = append(runs, phase(it))
		}
		got := MergeTrialRuns(runs).Iterations
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: iterations = %+v, want none", tc.name, got)
		case tc.want != nil && (got == nil || got.Iterations != tc.want.Iterations || got.Succeeded != tc.want.Succeeded ||
			got.Failed != tc.want.Failed || got.Latency.Count() != tc.want.Succeeded):
			t.Errorf("%s: iterations = %+v, want %+v with %d latencies", tc.name, got, tc.want, tc.want.Succeeded)
		case tc.want != nil && got.Latency.Quantile(100) < 3*time.Millisecond:
			t.Errorf("%s: merged p100 = %v, want the second trial's 3ms", tc.name, got.Latency.Quantile(100))
		}
	}
}
