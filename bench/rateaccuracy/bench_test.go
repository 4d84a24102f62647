package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

// phase is an open-model result of achieved requests in 1 s, every send
// late by lag.
func phase(achieved int64, lag time.Duration, failed int64) *results.PhaseResult {
	p := &results.PhaseResult{Counters: results.Counters{Requests: achieved, Failed: failed}, Elapsed: time.Second,
		Latency: results.NewHistogram(), SendLag: results.NewHistogram()}
	for range achieved {
		p.SendLag.Record(lag)
	}
	return p
}

func TestJudge(t *testing.T) {
	b := &bench{o: options{p50: 50 * time.Microsecond, p99: time.Millisecond, rateError: 0.01}}
	for _, tc := range []struct {
		name   string
		m      measurement
		busy   string
		ok     bool
		prefix string
	}{
		{"on time and on rate", measurement{p: phase(1000, 20*time.Microsecond, 0)}, "", true, "✅ pass"},
		{"rate 0.9 % short", measurement{p: phase(991, 20*time.Microsecond, 0)}, "", true, "✅ pass"},
		{"rate 2 % short", measurement{p: phase(980, 20*time.Microsecond, 0)}, "", false, "❌ FAIL: [rate off by 2.00%]"},
		{"half a millisecond late", measurement{p: phase(1000, 500*time.Microsecond, 0)}, "", false, "❌ FAIL: [send error p50 500µs]"},
		{"2 ms late", measurement{p: phase(1000, 2*time.Millisecond, 0)}, "", false, "❌ FAIL: [send error p50 2000µs send error p99 2000µs]"},
		{"failed requests", measurement{p: phase(1000, 20*time.Microsecond, 3)}, "", false, "❌ FAIL: [3 failed requests]"},
		{"late on a busy machine: not judged", measurement{p: phase(1000, 2*time.Millisecond, 0)}, "others", true, "⚠️ machine too busy: not judged (others)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			verdict, ok := b.judge(tc.m, 1000, tc.busy)
			if ok != tc.ok || !strings.HasPrefix(verdict, tc.prefix) {
				t.Errorf("judge = %q, %v; want %q…, %v", verdict, ok, tc.prefix, tc.ok)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		shares  []float64
		rates   []float64
		wantErr bool
	}{
		{nil, []float64{0.1, 0.25, 0.5}, nil, false},
		{[]string{"-shares", "0.5, 1"}, []float64{0.5, 1}, nil, false},
		{[]string{"-rates", "1000,5000"}, []float64{0.1, 0.25, 0.5}, []float64{1000, 5000}, false},
		{[]string{"-shares", "0.5,-1"}, nil, nil, true},
		{[]string{"-rates", "fast"}, nil, nil, true},
		{[]string{"-busy", "0"}, nil, nil, true},
	} {
		o, err := parseFlags(tc.args, &strings.Builder{})
		if (err != nil) != tc.wantErr {
			t.Errorf("parseFlags(%q) error = %v, want error %v", tc.args, err, tc.wantErr)
			continue
		}
		if err == nil && (!slices.Equal(o.shares, tc.shares) || !slices.Equal(o.rates, tc.rates)) {
			t.Errorf("parseFlags(%q) = shares %v, rates %v; want %v, %v", tc.args, o.shares, o.rates, tc.shares, tc.rates)
		}
	}
}
