package demoserver

import (
	"testing"
	"time"
)

func TestFaultsNext(t *testing.T) {
	const draws = 1000
	tests := []struct {
		name      string
		delay     time.Duration
		jitter    time.Duration
		errorRate float64
		wantFails func(n int) bool
	}{
		// No knobs: the fast path, no draw, no wait, never fails.
		{name: "none", wantFails: func(n int) bool { return n == 0 }},
		// A fixed delay is exact when there is no jitter.
		{name: "delay only", delay: 7 * time.Millisecond, wantFails: func(n int) bool { return n == 0 }},
		// Rate 1 must fail every time, not "almost always".
		{name: "always fail", errorRate: 1, wantFails: func(n int) bool { return n == draws }},
		// Jitter stays within [delay, delay+jitter).
		{name: "jitter", delay: 5 * time.Millisecond, jitter: 3 * time.Millisecond, wantFails: func(n int) bool { return n == 0 }},
		// Rate 0.1 over 1000 draws: far outside 50..150 means a broken draw.
		{name: "tenth", errorRate: 0.1, jitter: time.Millisecond, wantFails: func(n int) bool { return n > 50 && n < 150 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newFaults(tt.delay, tt.jitter, tt.errorRate, 1)
			fails := 0
			for range draws {
				wait, fail := f.next()
				if fail {
					fails++
				}
				if wait < tt.delay || (tt.jitter == 0 && wait != tt.delay) || (tt.jitter > 0 && wait >= tt.delay+tt.jitter) {
					t.Fatalf("wait = %v, want in [%v, %v+%v)", wait, tt.delay, tt.delay, tt.jitter)
				}
			}
			if !tt.wantFails(fails) {
				t.Errorf("%d of %d draws failed", fails, draws)
			}
		})
	}
}

func TestFaultsSeed(t *testing.T) {
	sequence := func(seed uint64) []time.Duration {
		f, _ := newFaults(0, time.Second, 0.5, seed)
		var out []time.Duration
		for range 20 {
			wait, fail := f.next()
			if fail {
				wait = -wait // fold the error decision into one comparable value
			}
			out = append(out, wait)
		}
		return out
	}
	if a, b := sequence(42), sequence(42); !equal(a, b) {
		t.Errorf("same seed gave different sequences:\n%v\n%v", a, b)
	}
	if a, b := sequence(42), sequence(43); equal(a, b) {
		t.Errorf("seeds 42 and 43 gave the same sequence %v", a)
	}
	// Seed 0 picks a random seed, and reports it so the run can be replayed.
	_, seed := newFaults(0, time.Second, 0.5, 0)
	if seed == 0 {
		t.Fatal("seed 0 was not replaced")
	}
	if a, b := sequence(seed), sequence(seed); !equal(a, b) {
		t.Error("the reported random seed does not replay")
	}
}

func equal(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
