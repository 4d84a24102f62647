package runner

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestAdaptiveNext(t *testing.T) {
	a := &scenarios.AdaptiveTrials{Min: 2, Max: 4}
	yes := func() bool { return true }
	no := func() bool { return false }
	tests := []struct {
		name     string
		ran      int
		decisive func() bool
		more     bool
		stop     string
	}{
		{"min always runs", 0, yes, true, ""},
		{"min always runs, decisive or not", 1, yes, true, ""},
		{"decisive at min stops", 2, yes, false, results.TrialsDecisive},
		{"inconclusive at min adds one", 2, no, true, ""},
		{"inconclusive below max adds one", 3, no, true, ""},
		{"max stops", 4, no, false, results.TrialsMax},
		{"decisive at max is decisive", 4, yes, false, results.TrialsDecisive},
		{"no judge stops at min", 2, nil, false, results.TrialsNoJudge},
		{"no judge still runs min", 1, nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			more, stop := adaptiveNext(a, tt.ran, tt.decisive)
			if more != tt.more || stop != tt.stop {
				t.Errorf("adaptiveNext(ran %d) = %v %q, want %v %q", tt.ran, more, stop, tt.more, tt.stop)
			}
		})
	}
}

// abScenario is a same-job A/B: target b judged against target a, one
// small closed-model phase with adaptive trials.
func abScenario(url string, a scenarios.AdaptiveTrials) *scenarios.Scenario {
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(url), Keepalive: true},
		scenarios.Phase{Name: "measure", Concurrency: 1, Requests: 5, Trials: a.Min, Adaptive: &a})
	base := sc.Cases[0]
	base.ID, base.Target.Name = "a", "a"
	cand := base
	cand.ID, cand.Target.Name, cand.Target.BaselineTarget = "b", "b", "a"
	sc.Cases = []scenarios.Case{base, cand}
	sc.Targets = []scenarios.Target{base.Target, cand.Target}
	return sc
}

// caseOrder records which case each measured phase run belonged to.
type caseOrder struct {
	mu    sync.Mutex
	cases []string
}

func (o *caseOrder) PhaseStarted(s results.Snapshot) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.cases = append(o.cases, s.Case)
}
func (o *caseOrder) Progress(results.Snapshot)                        {}
func (o *caseOrder) PhaseDone(results.Snapshot, *results.PhaseResult) {}

func TestAdaptiveTrials(t *testing.T) {
	tests := []struct {
		name         string
		trials       scenarios.AdaptiveTrials
		decisiveAt   int // Decisive is true from this call on; 0 = never; -1 = no judge
		wantTrials   int
		wantStop     string
		wantDecisive int // calls
	}{
		{"decisive after two more rounds", scenarios.AdaptiveTrials{Min: 2, Max: 6}, 3, 4, results.TrialsDecisive, 3},
		{"decisive at min", scenarios.AdaptiveTrials{Min: 2, Max: 6}, 1, 2, results.TrialsDecisive, 1},
		{"never decisive stops at max", scenarios.AdaptiveTrials{Min: 2, Max: 3}, 0, 3, results.TrialsMax, 2},
		{"no judge stops at min", scenarios.AdaptiveTrials{Min: 2, Max: 6}, -1, 2, results.TrialsNoJudge, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newCountingServer(t, hello)
			sc := abScenario(srv.URL, tt.trials)
			calls := 0
			var order caseOrder
			cfg := Config{Observer: &order}
			if tt.decisiveAt >= 0 {
				cfg.Judge.Decisive = func(ph *scenarios.Phase, cases []*results.CaseResult) bool {
					calls++
					if ph.Name != "measure" || len(cases) != 2 || cases[0].ID != "a" || cases[1].ID != "b" {
						t.Errorf("Decisive asked about phase %q with %d cases", ph.Name, len(cases))
						return false
					}
					// Each round so far is in both cases' provisional results.
					for _, c := range cases {
						if n := len(c.Phases[len(c.Phases)-1].Trials); n != tt.trials.Min+calls-1 {
							t.Errorf("call %d: case %s has %d trials so far, want %d", calls, c.ID, n, tt.trials.Min+calls-1)
						}
					}
					return tt.decisiveAt > 0 && calls >= tt.decisiveAt
				}
			}
			res, err := Run(context.Background(), sc, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, cr := range res.Cases {
				if len(cr.Phases) != 1 {
					t.Fatalf("case %s has %d phases, want 1", cr.ID, len(cr.Phases))
				}
				p := cr.Phases[0]
				if len(p.Trials) != tt.wantTrials || p.TrialsStop != tt.wantStop || p.Requests != int64(5*tt.wantTrials) {
					t.Errorf("case %s: %d trials (%d requests), stopped %q; want %d, %q", cr.ID, len(p.Trials), p.Requests, p.TrialsStop, tt.wantTrials, tt.wantStop)
				}
			}
			if calls != tt.wantDecisive {
				t.Errorf("Decisive called %d times, want %d", calls, tt.wantDecisive)
			}
			if got, want := strings.Join(order.cases, " "), strings.TrimSpace(strings.Repeat("a b ", tt.wantTrials)); got != want {
				t.Errorf("trials ran %q, want interleaved %q", got, want)
			}
		})
	}
}
