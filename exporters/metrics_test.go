package exporters

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

// TestBounds: 59 bounds from 100µs to 63s, whole µs, each at most 1.28×
// the one before (what the documented error bound of histogram_quantile
// rests on), among them every default bucket of Prometheus' clients.
func TestBounds(t *testing.T) {
	if len(Bounds) != 59 || Bounds[0] != 100*time.Microsecond || Bounds[len(Bounds)-1] != 63*time.Second {
		t.Fatalf("%d bounds, %v … %v; want 59 from 100µs to 63s", len(Bounds), Bounds[0], Bounds[len(Bounds)-1])
	}
	for i, b := range Bounds {
		if b%time.Microsecond != 0 {
			t.Errorf("bound %d = %v is not whole µs", i, b)
		}
		if i == 0 {
			continue
		}
		if r := float64(b) / float64(Bounds[i-1]); r < 1.24 || r > 1.28 {
			t.Errorf("bound %d = %v is %.3f× the one before, want ≈ 1.26×", i, b, r)
		}
	}
	for _, le := range []string{"0.0001", "0.000125", "0.000315", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "1.6", "2.5", "5", "10", "31.5", "63"} {
		if !slices.Contains(leValues, le) {
			t.Errorf("no bucket le=%q among %v", le, leValues)
		}
	}
}

// series finds the value of the sample named name whose labels include
// extra, or fails.
func series(t *testing.T, got []Sample, name string, extra ...Label) float64 {
	t.Helper()
	for _, s := range got {
		if s.Name == name && includes(s.Labels, extra) {
			return s.Value
		}
	}
	t.Fatalf("no %s%v among %d samples", name, extra, len(got))
	return 0
}

func includes(labels, want []Label) bool {
	for _, w := range want {
		if !slices.Contains(labels, w) {
			return false
		}
	}
	return true
}

// TestSamples: a phase's totals as counters, its failures by kind, the
// requests in flight, and its latencies as a cumulative histogram whose
// +Inf bucket and _count are every success and whose _sum is theirs.
func TestSamples(t *testing.T) {
	r := &results.PhaseResult{Latency: results.NewHistogram()}
	r.Counters = results.Counters{Requests: 16, Succeeded: 10, Failed: 6, BytesSent: 1600, BytesReceived: 32000,
		Errors: results.ErrorCounts{Connect: 2, Timeout: 1, Status: 3}}
	lat := map[time.Duration]int{50 * time.Microsecond: 3, 150 * time.Microsecond: 2, time.Millisecond: 4, 2 * time.Minute: 1}
	var sum time.Duration
	for d, n := range lat {
		for range n {
			r.Latency.Record(d)
			sum += d
		}
	}
	labels := phaseLabels("s", "api", "api", "measured", "")
	got := samples(labels, r, 5, make([]int64, len(Bounds)))

	for _, tc := range []struct {
		name  string
		extra []Label
		want  float64
	}{
		{MetricRequests, nil, 16},
		{MetricSucceeded, nil, 10},
		{MetricFailed, []Label{{"kind", "connect"}}, 2},
		{MetricFailed, []Label{{"kind", "timeout"}}, 1},
		{MetricFailed, []Label{{"kind", "status"}}, 3},
		{MetricFailed, []Label{{"kind", "reset"}}, 0}, // zero kinds are series too
		{MetricSentBytes, nil, 1600},
		{MetricReceivedBytes, nil, 32000},
		{MetricInFlight, nil, 5},
		{MetricDuration + "_bucket", []Label{{"le", "0.0001"}}, 3},   // the 50µs
		{MetricDuration + "_bucket", []Label{{"le", "0.000125"}}, 3}, // 150µs is above
		{MetricDuration + "_bucket", []Label{{"le", "0.00016"}}, 5},
		{MetricDuration + "_bucket", []Label{{"le", "0.001"}}, 9}, // 1ms is at its bound
		{MetricDuration + "_bucket", []Label{{"le", "63"}}, 9},    // 2 min is beyond the last bound
		{MetricDuration + "_bucket", []Label{{"le", "+Inf"}}, 10},
		{MetricDuration + "_count", nil, 10},
	} {
		if v := series(t, got, tc.name, tc.extra...); v != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.extra, v, tc.want)
		}
	}
	if v := series(t, got, MetricDuration+"_sum"); math.Abs(v-sum.Seconds()) > sum.Seconds()*0.001 {
		t.Errorf("_sum = %v s, want %v s within 0.1%%", v, sum.Seconds())
	}
	var prev float64
	buckets := 0
	for _, s := range got {
		if s.Name == MetricDuration+"_bucket" {
			buckets++
			if s.Value < prev {
				t.Errorf("bucket %v holds %v, fewer than the bucket below (%v): not cumulative", s.Labels, s.Value, prev)
			}
			prev = s.Value
		}
		if !slices.IsSortedFunc(s.Labels, func(a, b Label) int { return cmpName(a, b) }) {
			t.Errorf("%s: labels %v are not sorted by name", s.Name, s.Labels)
		}
	}
	if buckets != len(Bounds)+1 {
		t.Errorf("%d buckets, want %d and +Inf", buckets, len(Bounds))
	}
}

func cmpName(a, b Label) int {
	switch {
	case a.Name < b.Name:
		return -1
	case a.Name > b.Name:
		return 1
	}
	return 0
}

// TestSplitLabel: the runner's labels of a run of a phase, as the trial
// label and the rest of the phase label.
func TestSplitLabel(t *testing.T) {
	for _, tc := range []struct{ label, trial, rest string }{
		{"", "", ""},
		{"trial 2/5", "2", ""},                             // trials: N
		{"trial 1/2, interleaved", "1", ""},                // alternating cases: the order is no part
		{"trial 3 of 3–10", "3", ""},                       // adaptive trials
		{"probe 1, step 400/s", "", "probe 1, step 400/s"}, // a search's probe
		{"probe 2, step 800/s, warm-up 2", "", "probe 2, step 800/s, warm-up 2"}, // its warm-up, run again
		{"trial 12/20, probe 1, step 5/s, warm-up", "12", "probe 1, step 5/s, warm-up"},
		{"trials of a kind", "", "trials of a kind"}, // not a trial number
	} {
		trial, rest := splitLabel(tc.label)
		if trial != tc.trial || rest != tc.rest {
			t.Errorf("%q: trial %q, rest %q; want %q, %q", tc.label, trial, rest, tc.trial, tc.rest)
		}
	}
}

// BenchmarkSamples is the cost of one update on the runner's goroutine,
// once per tick, for a phase whose histogram spans its whole range.
func BenchmarkSamples(b *testing.B) {
	r := &results.PhaseResult{Latency: results.NewHistogram()}
	for d := time.Microsecond; d < time.Hour; d = d*11/10 + time.Microsecond {
		r.Latency.Record(d)
	}
	labels := phaseLabels("s", "api", "api", "measured", "")
	cum := make([]int64, len(Bounds))
	b.ReportAllocs()
	for b.Loop() {
		samples(labels, r, 0, cum)
	}
}
