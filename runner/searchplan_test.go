package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func pass(kind string, rate float64) results.Probe {
	return results.Probe{Kind: kind, Rate: rate, Passed: true}
}
func fail(kind string, rate float64) results.Probe { return results.Probe{Kind: kind, Rate: rate} }

func TestNextProbe(t *testing.T) {
	s := &scenarios.Search{From: 100, Max: 1000, Precision: 0.1, Step: time.Second}
	confirm2 := *s
	confirm2.Confirm = 2
	type want struct {
		rate   float64
		kind   string
		done   bool
		reason string // a part of it
	}
	tests := []struct {
		name   string
		search *scenarios.Search
		probes []results.Probe
		want   want
	}{
		{"starts at from", s, nil, want{100, ProbeGrow, false, ""}},
		{"doubles after a pass", s, []results.Probe{pass(ProbeGrow, 100)}, want{200, ProbeGrow, false, ""}},
		{"growth is capped at max", s, []results.Probe{pass(ProbeGrow, 100), pass(ProbeGrow, 200), pass(ProbeGrow, 400), pass(ProbeGrow, 800)},
			want{1000, ProbeGrow, false, ""}},
		{"max passing ends the search", s, []results.Probe{pass(ProbeGrow, 800), pass(ProbeGrow, 1000)},
			want{0, "", true, "the highest rate, 1000/s, met the SLO"}},
		{"max passing is confirmed first", &confirm2, []results.Probe{pass(ProbeGrow, 800), pass(ProbeGrow, 1000)},
			want{1000, ProbeConfirm, false, ""}},
		{"a failure starts the bisection", s, []results.Probe{pass(ProbeGrow, 100), pass(ProbeGrow, 200), fail(ProbeGrow, 400)},
			want{300, ProbeBisect, false, ""}},
		{"bisection narrows from below", s, []results.Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300)},
			want{350, ProbeBisect, false, ""}},
		{"bisection narrows from above", s, []results.Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), fail(ProbeBisect, 300)},
			want{250, ProbeBisect, false, ""}},
		{"a bracket within precision ends the search", s,
			[]results.Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325)},
			want{0, "", true, "300/s met the SLO, 325/s did not"}},
		{"a bracket within precision is confirmed", &confirm2,
			[]results.Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325)},
			want{300, ProbeConfirm, false, ""}},
		{"one confirmation is not two", &confirm2,
			[]results.Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325), pass(ProbeConfirm, 300)},
			want{300, ProbeConfirm, false, ""}},
		{"confirmed twice ends the search", &confirm2,
			[]results.Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325), pass(ProbeConfirm, 300), pass(ProbeConfirm, 300)},
			want{0, "", true, "300/s met the SLO, 325/s did not"}},
		{"a failed confirmation resumes the bisection below it", &confirm2,
			[]results.Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325), fail(ProbeConfirm, 300)},
			want{250, ProbeBisect, false, ""}},
		{"the first rate failing ends the search", s, []results.Probe{fail(ProbeGrow, 100)},
			want{0, "", true, "even 100/s failed the SLO"}},
		{"a saturated probe ends the search", s,
			[]results.Probe{pass(ProbeGrow, 100), {Kind: ProbeGrow, Rate: 200, Saturated: true, Reason: "cpu 95%"}},
			want{0, "", true, "the generator saturated at 200/s: cpu 95%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rate, kind, done, reason := nextProbe(tt.search, tt.probes)
			got := want{rate, kind, done, reason}
			if got.rate != tt.want.rate || got.kind != tt.want.kind || got.done != tt.want.done ||
				!strings.Contains(got.reason, tt.want.reason) || (tt.want.reason == "") != (got.reason == "") {
				t.Errorf("nextProbe = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSearchFindsTheTruth runs whole searches against a server that meets
// the SLO exactly up to a known capacity: the search must end with the
// truth inside its bracket, the bracket within precision, in few probes.
func TestSearchFindsTheTruth(t *testing.T) {
	tests := []struct {
		name       string
		search     scenarios.Search
		truth      float64
		wantLimit  bool
		maxProbes  int
		wantResult float64 // exact capacity when > 0
	}{
		{"capacity between probes", scenarios.Search{From: 100, Max: 100000, Precision: 0.05}, 2000, false, 14, 0},
		{"capacity on a doubling", scenarios.Search{From: 125, Max: 100000, Precision: 0.05}, 1000, false, 14, 0},
		{"confirmed", scenarios.Search{From: 100, Max: 100000, Precision: 0.05, Confirm: 2}, 5000, false, 16, 0},
		{"above max", scenarios.Search{From: 100, Max: 3000, Precision: 0.05}, 10000, false, 7, 3000},
		{"below from", scenarios.Search{From: 100, Max: 3000, Precision: 0.05}, 50, false, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var probes []results.Probe
			for {
				rate, kind, done, reason := nextProbe(&tt.search, probes)
				if done {
					res := searchOutcome(probes, reason)
					if tt.wantResult > 0 && res.Capacity != tt.wantResult {
						t.Errorf("capacity %v, want %v", res.Capacity, tt.wantResult)
					}
					if res.Capacity > tt.truth || (res.Fail > 0 && res.Fail <= tt.truth) {
						t.Errorf("bracket [%v, %v] does not hold the truth %v", res.Pass, res.Fail, tt.truth)
					}
					if res.Pass > 0 && res.Fail > 0 && (res.Fail-res.Pass)/res.Pass > tt.search.Precision {
						t.Errorf("bracket [%v, %v] wider than precision %v", res.Pass, res.Fail, tt.search.Precision)
					}
					if len(probes) > tt.maxProbes {
						t.Errorf("%d probes, want at most %d", len(probes), tt.maxProbes)
					}
					return
				}
				if len(probes) > 100 {
					t.Fatalf("search does not end: %+v", probes)
				}
				probes = append(probes, results.Probe{Kind: kind, Rate: rate, Passed: rate <= tt.truth})
			}
		})
	}
}

func TestSearchOutcome(t *testing.T) {
	tests := []struct {
		name   string
		probes []results.Probe
		want   results.SearchResult
	}{
		{"bracket", []results.Probe{pass(ProbeGrow, 100), fail(ProbeGrow, 200), pass(ProbeBisect, 150), fail(ProbeBisect, 175)},
			results.SearchResult{Capacity: 150, Pass: 150, Fail: 175}},
		{"limited by the generator", []results.Probe{pass(ProbeGrow, 100), {Rate: 200, Saturated: true}},
			results.SearchResult{Capacity: 100, Pass: 100, LimitedByGenerator: true}},
		{"a failed confirmation lowers the top", []results.Probe{pass(ProbeGrow, 100), fail(ProbeGrow, 200), pass(ProbeBisect, 150), fail(ProbeConfirm, 150)},
			results.SearchResult{Capacity: 100, Pass: 100, Fail: 150}},
		{"nothing passed", []results.Probe{fail(ProbeGrow, 100)}, results.SearchResult{Fail: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := searchOutcome(tt.probes, "r")
			got.Probes, got.Reason = nil, ""
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDrainFrom(t *testing.T) {
	tests := []struct {
		name   string
		probes []results.Probe
		want   float64 // the rate of the probe to drain, 0 for none
	}{
		{"first probe: nothing to drain", nil, 0},
		{"after a pass: its few in flight are no backlog", []results.Probe{pass(ProbeGrow, 100)}, 0},
		{"after a failure: drain it", []results.Probe{pass(ProbeGrow, 100), fail(ProbeGrow, 200)}, 200},
		{"only the last probe counts", []results.Probe{fail(ProbeGrow, 200), pass(ProbeBisect, 150)}, 0},
		{"a saturated probe ends the search, and judged nothing", []results.Probe{{Rate: 400, Saturated: true}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := drainFrom(tt.probes)
			if (got == nil) != (tt.want == 0) || got != nil && got.Rate != tt.want {
				t.Errorf("drainFrom = %+v, want the probe at %v", got, tt.want)
			}
		})
	}
}

func TestDrainPause(t *testing.T) {
	tests := []struct {
		name string
		p    *results.Probe
		want time.Duration
	}{
		{"no probe", nil, 0},
		{"nothing left", &results.Probe{Rate: 1600, Achieved: 900, Left: 0}, 0},
		{"1000 left by an overload the server took at 900/s: 1.11 s, plus a tenth", &results.Probe{Rate: 1600, Achieved: 900, Left: 1000}, 1222222222},
		{"nothing achieved: at the requested rate", &results.Probe{Rate: 500, Left: 100}, 220 * time.Millisecond},
		{"a backlog of minutes is waited for at most maxDrainPause", &results.Probe{Rate: 1000, Achieved: 10, Left: 1000}, maxDrainPause},
		{"no rate at all: the longest pause", &results.Probe{Left: 5}, maxDrainPause},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := drainPause(tt.p); got != tt.want {
				t.Errorf("drainPause = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLeftBehind(t *testing.T) {
	tests := []struct {
		name string
		r    results.PhaseResult
		want int64
	}{
		{"no series", results.PhaseResult{}, 0},
		{"abandoned at the end: the last point's in flight", results.PhaseResult{Series: []results.Second{{InFlight: 1000}, {InFlight: 979}}}, 979},
		{"graceful stop ran out: its unfinished", results.PhaseResult{Series: []results.Second{{InFlight: 3}},
			Counters: results.Counters{Errors: results.ErrorCounts{Unfinished: 40}}}, 40},
		{"all answered", results.PhaseResult{Series: []results.Second{{InFlight: 900}, {InFlight: 0}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := leftBehind(&tt.r); got != tt.want {
				t.Errorf("leftBehind = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSendingPoints(t *testing.T) {
	series := []results.Second{{At: 0}, {At: 1}, {At: 2}, {At: 3}}
	tests := []struct {
		name          string
		tick, sending time.Duration
		want          int
	}{
		{"1 s of sending: one point, not the graceful stop's", time.Second, time.Second, 1},
		{"2 s of sending", time.Second, 2 * time.Second, 2},
		{"2.1 s: the third point is mostly not sending", time.Second, 2100 * time.Millisecond, 2},
		{"2.9 s: the third point is, within a quarter tick", time.Second, 2900 * time.Millisecond, 3},
		{"ticks of 50 ms, 100 ms of sending", 50 * time.Millisecond, 100 * time.Millisecond, 2},
		{"shorter than a tick: no whole point", time.Second, 500 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sendingPoints(series, tt.tick, tt.sending); len(got) != tt.want {
				t.Errorf("%d sending points, want %d", len(got), tt.want)
			}
		})
	}
}

// pt is a one-second point: answered requests, requests waiting at its
// end, and p99 in milliseconds.
func pt(completed, inFlight int64, p99ms float64) results.Second {
	return results.Second{Completed: completed, InFlight: inFlight, P99: time.Duration(p99ms * float64(time.Millisecond))}
}

func TestWarmupTrend(t *testing.T) {
	// At 800/s a one-second point has 800 arrivals; 5 % is 40.
	tests := []struct {
		name string
		a, b results.Second
		want int
	}{
		{"server keeping up: same counts, p99 of its service time", pt(800, 4, 6), pt(799, 5, 8), trendSteady},
		{"noise within 5 % and half again", pt(790, 4, 6), pt(830, 40, 10), trendSteady},
		{"backlog draining: fewer waiting", pt(870, 900, 1100), pt(880, 300, 900), trendDraining},
		{"backlog draining: latency falling", pt(820, 20, 400), pt(810, 5, 30), trendDraining},
		{"catching up: more answered than arrive", pt(700, 40, 30), pt(900, 30, 25), trendDraining},
		{"the oldest waiting request is latency too", results.Second{Completed: 800, InFlight: 5, P99: 8e6, OldestWait: 2e9}, pt(800, 5, 8), trendDraining},
		{"over capacity: more waiting each second", pt(700, 300, 350), pt(700, 400, 450), trendGrowing},
		{"over capacity: latency rising", pt(800, 10, 10), pt(800, 20, 60), trendGrowing},
		{"over capacity at the max_in_flight cap: fewer answered than arrive", pt(700, 1000, 1400), pt(700, 1000, 1500), trendGrowing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := warmupTrend(800, time.Second, 0.05, tt.a, tt.b)
			if got != tt.want || (got != trendSteady) != (why != "") {
				t.Errorf("trend %d (%q), want %d", got, why, tt.want)
			}
		})
	}
}

func TestWarmupNext(t *testing.T) {
	steady := []results.Second{pt(800, 4, 6), pt(800, 4, 7)}
	draining := []results.Second{pt(870, 900, 1100), pt(880, 300, 900)}
	growing := []results.Second{pt(700, 300, 350), pt(700, 400, 450)}
	tests := []struct {
		name       string
		pts        []results.Second
		dropped    bool
		extensions int
		extend     bool
		steady     bool
		note       string
	}{
		{"one point is no trend: extend", steady[:1], false, 0, true, false, ""},
		{"two steady points in the first warm-up", steady, false, 0, false, true, "warm-up steady"},
		{"steady after two extensions", steady, false, 2, false, true, "warm-up extended 2× until steady"},
		{"still draining: extend", draining, false, 1, true, false, ""},
		{"still draining after the last extension: measured, and said",
			draining, false, maxWarmupExtensions, false, false, "warm-up extended 4× and still draining (requests waiting fell from 900 to 300): measured anyway"},
		{"growing: over capacity, no point waiting",
			growing, false, 1, false, false, "backlog growing in the warm-up (requests waiting grew from 300 to 400): the rate is over capacity, measured at once"},
		{"arrivals dropped at max_in_flight: over capacity",
			steady[:1], true, 0, false, false, "max_in_flight turned arrivals away in the warm-up: the rate is over capacity, measured at once"},
		{"never two points, out of extensions",
			nil, false, maxWarmupExtensions, false, false, "warm-up extended 4× without two whole ticks to compare: measured anyway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extend, steady, note := warmupNext(800, time.Second, 0.05, tt.pts, tt.dropped, tt.extensions)
			if extend != tt.extend || steady != tt.steady || note != tt.note {
				t.Errorf("warmupNext = %v, %v, %q; want %v, %v, %q", extend, steady, note, tt.extend, tt.steady, tt.note)
			}
		})
	}
}
