package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

func pass(kind string, rate float64) Probe { return Probe{Kind: kind, Rate: rate, Passed: true} }
func fail(kind string, rate float64) Probe { return Probe{Kind: kind, Rate: rate} }

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
		probes []Probe
		want   want
	}{
		{"starts at from", s, nil, want{100, ProbeGrow, false, ""}},
		{"doubles after a pass", s, []Probe{pass(ProbeGrow, 100)}, want{200, ProbeGrow, false, ""}},
		{"growth is capped at max", s, []Probe{pass(ProbeGrow, 100), pass(ProbeGrow, 200), pass(ProbeGrow, 400), pass(ProbeGrow, 800)},
			want{1000, ProbeGrow, false, ""}},
		{"max passing ends the search", s, []Probe{pass(ProbeGrow, 800), pass(ProbeGrow, 1000)},
			want{0, "", true, "the highest rate, 1000/s, met the SLO"}},
		{"max passing is confirmed first", &confirm2, []Probe{pass(ProbeGrow, 800), pass(ProbeGrow, 1000)},
			want{1000, ProbeConfirm, false, ""}},
		{"a failure starts the bisection", s, []Probe{pass(ProbeGrow, 100), pass(ProbeGrow, 200), fail(ProbeGrow, 400)},
			want{300, ProbeBisect, false, ""}},
		{"bisection narrows from below", s, []Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300)},
			want{350, ProbeBisect, false, ""}},
		{"bisection narrows from above", s, []Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), fail(ProbeBisect, 300)},
			want{250, ProbeBisect, false, ""}},
		{"a bracket within precision ends the search", s,
			[]Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325)},
			want{0, "", true, "300/s met the SLO, 325/s did not"}},
		{"a bracket within precision is confirmed", &confirm2,
			[]Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325)},
			want{300, ProbeConfirm, false, ""}},
		{"one confirmation is not two", &confirm2,
			[]Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325), pass(ProbeConfirm, 300)},
			want{300, ProbeConfirm, false, ""}},
		{"confirmed twice ends the search", &confirm2,
			[]Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325), pass(ProbeConfirm, 300), pass(ProbeConfirm, 300)},
			want{0, "", true, "300/s met the SLO, 325/s did not"}},
		{"a failed confirmation resumes the bisection below it", &confirm2,
			[]Probe{pass(ProbeGrow, 200), fail(ProbeGrow, 400), pass(ProbeBisect, 300), fail(ProbeBisect, 325), fail(ProbeConfirm, 300)},
			want{250, ProbeBisect, false, ""}},
		{"the first rate failing ends the search", s, []Probe{fail(ProbeGrow, 100)},
			want{0, "", true, "even 100/s failed the SLO"}},
		{"a saturated probe ends the search", s,
			[]Probe{pass(ProbeGrow, 100), {Kind: ProbeGrow, Rate: 200, Saturated: true, Reason: "cpu 95%"}},
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
			var probes []Probe
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
				probes = append(probes, Probe{Kind: kind, Rate: rate, Passed: rate <= tt.truth})
			}
		})
	}
}

func TestSearchOutcome(t *testing.T) {
	tests := []struct {
		name   string
		probes []Probe
		want   SearchResult
	}{
		{"bracket", []Probe{pass(ProbeGrow, 100), fail(ProbeGrow, 200), pass(ProbeBisect, 150), fail(ProbeBisect, 175)},
			SearchResult{Capacity: 150, Pass: 150, Fail: 175}},
		{"limited by the generator", []Probe{pass(ProbeGrow, 100), {Rate: 200, Saturated: true}},
			SearchResult{Capacity: 100, Pass: 100, LimitedByGenerator: true}},
		{"a failed confirmation lowers the top", []Probe{pass(ProbeGrow, 100), fail(ProbeGrow, 200), pass(ProbeBisect, 150), fail(ProbeConfirm, 150)},
			SearchResult{Capacity: 100, Pass: 100, Fail: 150}},
		{"nothing passed", []Probe{fail(ProbeGrow, 100)}, SearchResult{Fail: 100}},
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
