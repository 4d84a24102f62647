package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestSecondRing(t *testing.T) {
	second := func(n int64) (results.Counters, *results.Histogram) {
		h := results.NewHistogram()
		for range n {
			h.Record(time.Duration(n) * time.Millisecond)
		}
		return results.Counters{Requests: n, Succeeded: n}, h
	}
	tests := []struct {
		name     string
		growAt   int // grow to growTo after this many seconds
		growTo   int
		seconds  int // pushed: second i has i requests (1-based)
		last     int
		want     int64 // requests in the last `last` seconds
		wantSecs int
	}{
		{"one second kept before growing", 0, 1, 3, 1, 3, 1},
		{"grown after the first second", 1, 3, 5, 3, 3 + 4 + 5, 3},
		{"younger than the window", 1, 10, 4, 10, 1 + 2 + 3 + 4, 4},
		{"grown when full keeps the order", 2, 4, 6, 4, 3 + 4 + 5 + 6, 4},
		{"the window is the ring's", 1, 3, 6, 3, 4 + 5 + 6, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newSecondRing()
			for i := 1; i <= tt.seconds; i++ {
				if i-1 == tt.growAt {
					r.grow(tt.growTo)
				}
				r.push(second(int64(i)))
			}
			c, h, n := r.last(tt.last)
			if c.Requests != tt.want || h.Count() != tt.want || n != tt.wantSecs {
				t.Errorf("last(%d) = %d requests (%d in the histogram) over %d seconds, want %d over %d",
					tt.last, c.Requests, h.Count(), n, tt.want, tt.wantSecs)
			}
		})
	}
}

// TestAbortStopsTheRunWithinATick fails an abort rule on its third check:
// the phase must stop with no more than the tick in progress recorded,
// the later phase must not run, and the run must end normally, aborted.
func TestAbortStopsTheRunWithinATick(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "load", Concurrency: 2, Duration: time.Minute},
		scenarios.Phase{Name: "later", Concurrency: 2, Duration: time.Minute})
	const failAt = 3
	const tick = 20 * time.Millisecond
	checks := 0
	var whole, window results.Stats
	judge := func(c *scenarios.Case, ph *scenarios.Phase, elapsed time.Duration, stats func(time.Duration) results.Stats) *results.Aborted {
		// As a rule with a window does, ask for it on every check.
		checks++
		whole, window = stats(0), stats(2*tick)
		if checks < failAt {
			return nil
		}
		return &results.Aborted{Name: "fast", Rule: "p99 < 1ns", Window: 2 * tick, Actual: "p99 = " + window.Latency.P99.String()}
	}
	cfg := Config{Tick: tick, Judge: Judge{Abort: judge}}
	res, err := Run(context.Background(), sc, cfg)
	if err != nil {
		t.Fatalf("an aborted run is not an error: %v", err)
	}
	if res.Aborted == nil || res.Aborted.Case != "t" || res.Aborted.Phase != "load" || res.Aborted.Name != "fast" || res.Aborted.At <= 0 {
		t.Fatalf("run aborted = %+v, want rule fast on case t, phase load, with its time", res.Aborted)
	}
	if res.Interrupted {
		t.Error("an aborted run is not an interrupted one")
	}
	cr := res.Cases[0]
	if len(cr.Phases) != 1 || cr.Phases[0].Aborted == nil || cr.Phases[0].Interrupted {
		t.Fatalf("phases %d, first aborted %v interrupted %v: want only the aborted one", len(cr.Phases), cr.Phases[0].Aborted, cr.Phases[0].Interrupted)
	}
	p := cr.Phases[0]
	if checks != failAt {
		t.Errorf("the rule was checked %d times, want %d: none after it failed", checks, failAt)
	}
	// Seconds closed by the ticks up to the failure, plus at most the
	// partial one in flight when the load stopped.
	if n := len(p.Series); n < failAt || n > failAt+1 {
		t.Errorf("%d seconds recorded, want %d or %d", n, failAt, failAt+1)
	}
	if window.Elapsed != 2*tick {
		t.Errorf("window stats cover %v, want the last 2 ticks", window.Elapsed)
	}
	var want int64
	for _, s := range p.Series[failAt-2 : failAt] {
		want += s.Completed
	}
	if window.Requests != want {
		t.Errorf("window counted %d requests, the last two seconds %d", window.Requests, want)
	}
	if whole.Requests < window.Requests || whole.Elapsed < window.Elapsed {
		t.Errorf("whole phase %d requests in %v, less than its window's %d in %v", whole.Requests, whole.Elapsed, window.Requests, window.Elapsed)
	}
}

// TestAbortStopsASearch fails an abort rule during the third probe's
// step: the search ends there, aborted, with the probes before it judged.
func TestAbortStopsASearch(t *testing.T) {
	srv := newCountingServer(t, hello)
	ph := searchPhase(scenarios.Search{From: 50, Max: 800, Precision: 0.1})
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true}, ph)
	// Each probe's step is a phase of its own: count them as they show up.
	steps := map[*scenarios.Phase]bool{}
	judge := func(c *scenarios.Case, p *scenarios.Phase, elapsed time.Duration, stats func(time.Duration) results.Stats) *results.Aborted {
		if p.Warmup {
			return nil
		}
		steps[p] = true
		if len(steps) == 3 {
			return &results.Aborted{Name: "errors", Rule: "error_rate < 0.01"}
		}
		return nil
	}
	cfg := Config{Tick: 20 * time.Millisecond, Judge: Judge{Abort: judge, SLO: scriptedSLO(t, true, true, true, true)}}
	res, err := runWith(context.Background(), sc, cfg, ignoringSaturation())
	if err != nil {
		t.Fatal(err)
	}
	p := res.Cases[0].Phases[0]
	if p.Aborted == nil || res.Aborted != p.Aborted || p.Interrupted {
		t.Fatalf("phase aborted %+v, run aborted %+v, interrupted %v: want the phase's abort on the run", p.Aborted, res.Aborted, p.Interrupted)
	}
	if len(p.Search.Probes) != 2 || !strings.Contains(p.Search.Reason, `abort rule "errors"`) {
		t.Errorf("%d probes judged, search ended %q; want 2 and the abort rule", len(p.Search.Probes), p.Search.Reason)
	}
	// The abort came in the third probe, after the second's step ended.
	second := p.Search.Probes[1]
	if end := second.Start.Add(second.Elapsed).Sub(p.Start); p.Aborted.At <= end {
		t.Errorf("aborted at %v from the search's start, before the second probe's step ended at %v", p.Aborted.At, end)
	}
}
