package results

import (
	"strings"
	"testing"
	"time"
)

func TestSummarizeCountsSuccessesOnly(t *testing.T) {
	p := &PhaseResult{Latency: NewHistogram(), FailedLatency: NewHistogram(), Connect: NewHistogram(), Elapsed: 2 * time.Second}
	p.Requests, p.Succeeded, p.Failed = 400, 200, 200
	p.Errors.Connect = 200
	for range 200 {
		p.Latency.Record(10 * time.Millisecond)
		p.FailedLatency.Record(20 * time.Microsecond)
	}
	p.ErrorSamples = map[string]string{"connect": "connection refused"}
	s := Summarize([]*PhaseResult{p})
	if s.RPS != 100 || s.AttemptedRPS != 200 {
		t.Errorf("rps %v attempted %v, want 100 (successes) and 200", s.RPS, s.AttemptedRPS)
	}
	if s.Latency.P50 < 10*time.Millisecond {
		t.Errorf("p50 = %v: the fast failures leaked into the latency of successes", s.Latency.P50)
	}
	if s.FailedLatency.P50 > 21*time.Microsecond || s.FailedLatency.P50 < 19*time.Microsecond {
		t.Errorf("failed p50 = %v, want ≈20µs", s.FailedLatency.P50)
	}
	if s.ErrorSamples["connect"] != "connection refused" {
		t.Errorf("samples = %v", s.ErrorSamples)
	}
}

func TestCarriedOut(t *testing.T) {
	phase := func(name string, requests, succeeded int64, errs ErrorCounts, samples map[string]string) *PhaseResult {
		p := &PhaseResult{Name: name, ErrorSamples: samples}
		p.Requests, p.Succeeded, p.Failed, p.Errors = requests, succeeded, requests-succeeded, errs
		return p
	}
	for _, tc := range []struct {
		name   string
		phases []*PhaseResult
		want   string // substring; "" = carried out
	}{
		{"no measured phase (warm-up only)", nil, "no measured phase ran"},
		{"every phase had a success", []*PhaseResult{phase("a", 10, 1, ErrorCounts{Status: 9}, nil), phase("b", 5, 5, ErrorCounts{}, nil)}, ""},
		{"nothing completed", []*PhaseResult{phase("m", 0, 0, ErrorCounts{}, nil)}, `phase "m": no request completed`},
		{"dead server names the kind and its first message",
			[]*PhaseResult{phase("m", 100, 0, ErrorCounts{Connect: 100}, map[string]string{"connect": "dial tcp 127.0.0.1:18099: connect: connection refused"})},
			`phase "m": no request succeeded (100 failed, 100 by connect: dial tcp 127.0.0.1:18099: connect: connection refused)`},
		{"the dominant kind wins",
			[]*PhaseResult{phase("m", 10, 0, ErrorCounts{Timeout: 3, Reset: 7}, map[string]string{"timeout": "t", "reset": "connection reset by peer"})},
			"7 by reset: connection reset by peer"},
		{"one dead phase among good ones fails the case",
			[]*PhaseResult{phase("a", 10, 10, ErrorCounts{}, nil), phase("b", 4, 0, ErrorCounts{Status: 4}, map[string]string{"status": "unexpected status 503"})},
			`phase "b": no request succeeded (4 failed, 4 by status: unexpected status 503)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CarriedOut(tc.phases)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("CarriedOut = %q, want %q", got, tc.want)
			}
		})
	}
}
