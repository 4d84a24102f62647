package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func init() {
	okChecks["search"] = checkSearchCorpus
}

// checkSearchCorpus checks the search phase of SPEC §14, adaptive trials
// and abort rules as the corpus writes them.
func checkSearchCorpus(t *testing.T, s *Scenario) {
	ph := s.Cases[0].Phases
	if len(ph) != 4 {
		t.Fatalf("%d phases, want 4", len(ph))
	}
	wantSearch := &Search{From: 1000, Max: 200000, Step: 5 * time.Second, ProbeWarmup: time.Second,
		Precision: 0.05, SLO: "p99 < 50ms && error_rate < 0.1%", SLOPos: Pos{s.File, 17, 12}, Confirm: 2,
		MaxInFlight: DefaultMaxInFlight}
	if diff := cmp.Diff(wantSearch, ph[1].Search); diff != "" {
		t.Errorf("capacity search (-want +got):\n%s", diff)
	}
	if p := ph[1]; p.Rate.Open() || p.Concurrency != 0 || p.Duration != 0 || p.Requests != 0 || p.Trials != 1 {
		t.Errorf("a search phase sets no load of its own: rate %v, concurrency %d, duration %s, requests %d, trials %d",
			p.Rate, p.Concurrency, p.Duration, p.Requests, p.Trials)
	}
	tuned := &Search{From: 50.5, Max: 50.5, Step: 2 * time.Second, Precision: 0.1, SLO: "p(99.9) < 80ms",
		SLOPos: Pos{s.File, 25, 13}, MaxInFlight: 64}
	if diff := cmp.Diff(tuned, ph[2].Search); diff != "" {
		t.Errorf("tuned search (-want +got):\n%s", diff)
	}
	if ph[2].Trials != 3 || ph[2].Adaptive != nil {
		t.Errorf("tuned: trials %d, adaptive %v; want 3, nil", ph[2].Trials, ph[2].Adaptive)
	}
	if diff := cmp.Diff(&AdaptiveTrials{Min: 3, Max: 12}, ph[3].Adaptive); diff != "" || ph[3].Trials != 3 {
		t.Errorf("adaptive trials: Trials = %d (want min, 3), (-want +got):\n%s", ph[3].Trials, diff)
	}
	if ph[0].Search != nil || ph[3].Search != nil {
		t.Error("Search set on a phase without search:")
	}
	type abort struct {
		Rule   string
		Abort  bool
		Window time.Duration
	}
	var got []abort
	for _, th := range s.Thresholds {
		got = append(got, abort{th.Rule, th.Abort, th.Window})
	}
	want := []abort{
		{"capacity >= 20000", false, 0},
		{`!regressed("capacity", 5%)`, false, 0},
		{"error_rate < 1%", true, 10 * time.Second},
		{"p99 < 2s", true, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("thresholds (-want +got):\n%s", diff)
	}
}

func TestSearchPrecision(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{in: "5%", want: 0.05},
		{in: "0.5%", want: 0.005},
		{in: "0.05", want: 0.05},
		{in: "50%", want: 0.5},
		{in: "0%", err: "must be above 0%"},
		{in: "-1%", err: "must be above 0%"},
		{in: "100%", err: "must be below 100%"},
		{in: "1", err: "write 1% for 1 percent"},
		{in: "5 %", want: 0.05},
		{in: "%", err: "expected a percentage"},
		{in: "NaN%", err: "expected a percentage"},
		{in: "0x1p-3", err: "expected a percentage"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			src := "version: 1\nname: p\ntargets: [{name: a, http: {url: 'http://h:1'}}]\n" +
				"phases: [{name: s, search: {rate: {from: 1, max: 2}, step: 1s, slo: 'p99 < 1s', precision: '" + tc.in + "'}}]\n"
			s, err := Parse("p.yaml", []byte(src), LoadOptions{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Cases[0].Phases[0].Search.Precision; got != tc.want {
				t.Errorf("precision = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSplitSearchPhase(t *testing.T) {
	ph := Phase{Name: "capacity", Search: &Search{From: 1000, Max: 9000, Step: time.Second, SLO: "p99 < 1s", MaxInFlight: 5}}
	tests := []struct {
		seg      Segment
		from     float64
		max      float64
		inFlight int
	}{
		{Whole, 1000, 9000, 5},
		{Segment{1, 2}, 500, 4500, 3},
		{Segment{2, 2}, 500, 4500, 2},
		{Segment{4, 8}, 125, 1125, 1},
	}
	for _, tc := range tests {
		t.Run(tc.seg.String(), func(t *testing.T) {
			part, ok := splitPhaseOK(ph, tc.seg)
			if !ok {
				t.Fatal("a search share is never empty")
			}
			s := part.Search
			if s.From != tc.from || s.Max != tc.max || s.MaxInFlight != tc.inFlight {
				t.Errorf("from %v, max %v, max_in_flight %d; want %v, %v, %d", s.From, s.Max, s.MaxInFlight, tc.from, tc.max, tc.inFlight)
			}
			if s.SLO != "p99 < 1s" || s.Step != time.Second {
				t.Errorf("SLO %q, step %s: a segment keeps the SLO and the step", s.SLO, s.Step)
			}
		})
	}
	if ph.Search.From != 1000 {
		t.Error("splitPhase changed the phase it was given")
	}
}
