package runner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// scriptedSLO passes or fails the probes in the order given, whatever
// their figures: what the search does with verdicts is under test, not
// the server's speed.
func scriptedSLO(t *testing.T, verdicts ...bool) func(*scenarios.Case, *scenarios.Phase, results.Stats) (bool, string, error) {
	var mu sync.Mutex
	n := 0
	return func(_ *scenarios.Case, ph *scenarios.Phase, st results.Stats) (bool, string, error) {
		mu.Lock()
		defer mu.Unlock()
		if ph.Search == nil {
			t.Errorf("SLO judged with phase %q, not the search phase", ph.Name)
		}
		if n >= len(verdicts) {
			t.Errorf("probe %d judged, the script has %d", n+1, len(verdicts))
			return false, "off script", nil
		}
		v := verdicts[n]
		n++
		return v, "p99 = " + st.Latency.P99.String(), nil
	}
}

// phaseLog records what an Observer is told.
type phaseLog struct {
	mu      sync.Mutex
	started []string
}

func (l *phaseLog) PhaseStarted(s results.Snapshot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = append(l.started, s.Phase)
}
func (l *phaseLog) Progress(results.Snapshot)                        {}
func (l *phaseLog) PhaseDone(results.Snapshot, *results.PhaseResult) {}

func searchPhase(s scenarios.Search) scenarios.Phase {
	s.Step, s.ProbeWarmup, s.MaxInFlight = 100*time.Millisecond, 50*time.Millisecond, 20
	return scenarios.Phase{Name: "capacity", Search: &s}
}

// checkProbes asserts what holds for any search, whatever the machine's
// load: each probe is the one nextProbe asked for, the outcome is the
// probes', and the phase's counters are the probes' measured steps. It
// reports whether the generator kept up with every probe, so that the
// caller can check the exact path too.
func checkProbes(t *testing.T, s *scenarios.Search, p *results.PhaseResult) bool {
	t.Helper()
	if p.Search == nil {
		t.Fatal("no search result on a search phase")
	}
	probes := p.Search.Probes
	var requests int64
	for i, pr := range probes {
		rate, kind, done, _ := nextProbe(s, probes[:i])
		if done || rate != pr.Rate || kind != pr.Kind {
			t.Errorf("probe %d is %s %v, but the search asked for %s %v (done %v)", i+1, pr.Kind, pr.Rate, kind, rate, done)
		}
		requests += pr.Requests
	}
	if _, _, done, reason := nextProbe(s, probes); !done || reason != p.Search.Reason {
		t.Errorf("search ended with %q, but the probes say done=%v %q", p.Search.Reason, done, reason)
	}
	if want := searchOutcome(probes, p.Search.Reason); want.Capacity != p.Search.Capacity || want.Fail != p.Search.Fail {
		t.Errorf("capacity %v fail %v, the probes give %v and %v", p.Search.Capacity, p.Search.Fail, want.Capacity, want.Fail)
	}
	if p.Requests != requests {
		t.Errorf("phase counted %d requests, its probes %d", p.Requests, requests)
	}
	return !p.Search.LimitedByGenerator
}

func TestSearchPhaseProbesAndMerges(t *testing.T) {
	srv := newCountingServer(t, hello)
	ph := searchPhase(scenarios.Search{From: 50, Max: 400, Precision: 0.3, Confirm: 1})
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true}, ph)
	var log phaseLog
	// 50 ✓, 100 ✓, 200 ✗, bisect 150 ✓, 175 ✗ (within 30 %), confirm 150 ✓.
	cfg := Config{Tick: 50 * time.Millisecond, Observer: &log,
		Judge: Judge{SLO: scriptedSLO(t, true, true, false, true, false, true)}}
	p := runOne(t, sc, cfg, ignoringSaturation())
	if !checkProbes(t, sc.Cases[0].Phases[0].Search, p) {
		t.Fatalf("search limited by the generator: %s", p.Search.Reason)
	}
	var got []string
	for _, pr := range p.Search.Probes {
		got = append(got, pr.Kind+" "+units.FormatRate(pr.Rate))
	}
	want := "grow 50/s, grow 100/s, grow 200/s, bisect 150/s, bisect 175/s, confirm 150/s"
	if strings.Join(got, ", ") != want {
		t.Errorf("probes %s, want %s", strings.Join(got, ", "), want)
	}
	if p.Search.Capacity != 150 || p.Search.Pass != 150 || p.Search.Fail != 175 {
		t.Errorf("search found %+v, want capacity 150 in [150, 175]", *p.Search)
	}
	if st := results.Summarize([]*results.PhaseResult{p}); st.Capacity != 150 || st.Search != p.Search {
		t.Errorf("stats capacity %v, want the search's 150", st.Capacity)
	}
	if pr := p.Search.Probes[2]; pr.Passed || pr.Reason == "" {
		t.Errorf("failed probe %+v has no reason", pr)
	}
	phases := 2 * len(p.Search.Probes)
	for i, pr := range p.Search.Probes {
		afterFail := i > 0 && !p.Search.Probes[i-1].Passed
		switch {
		case afterFail && pr.Drain == nil:
			t.Errorf("probe %d follows a failed one but has no drain", i+1)
		case !afterFail && pr.Drain != nil:
			t.Errorf("probe %d follows a passed one but drained: %+v", i+1, *pr.Drain)
		case pr.Drain != nil:
			// One warm-up of one tick is no trend: at least one more is run,
			// unless the warm-up already showed the rate over capacity (a
			// busy machine's generator turned arrivals away), which is
			// measured at once (warmupNext, table-tested without a clock).
			overNow := pr.Drain.Extensions == 0 && strings.HasSuffix(pr.Drain.Note, "the rate is over capacity, measured at once")
			if !overNow && (pr.Drain.Extensions < 1 || pr.Drain.Extensions > maxWarmupExtensions || pr.Drain.Note == "") {
				t.Errorf("probe %d drained with %+v, want 1 to %d extensions and a note, or none when over capacity at once", i+1, *pr.Drain, maxWarmupExtensions)
			}
			phases += pr.Drain.Extensions
		}
	}
	if len(log.started) != phases || !strings.Contains(log.started[1], "probe 1, grow 50/s") {
		t.Errorf("progress shows %q, want a warm-up and a step per probe, and each warm-up extension", log.started)
	}
}

func TestSearchTrialsTakeTheMedianCapacity(t *testing.T) {
	srv := newCountingServer(t, hello)
	ph := searchPhase(scenarios.Search{From: 100, Max: 200, Precision: 0.5})
	ph.Trials = 3
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true}, ph)
	// Trial 1: 100 ✓ 200 ✓ → 200. Trial 2: 100 ✓ 200 ✗ 150 ✓ → 150. Trial 3: 100 ✗ → 0.
	cfg := Config{Tick: 50 * time.Millisecond, Judge: Judge{SLO: scriptedSLO(t, true, true, true, false, true, false)}}
	p := runOne(t, sc, cfg, ignoringSaturation())
	if len(p.Trials) != 3 {
		t.Fatalf("%d trials, want 3", len(p.Trials))
	}
	caps := []float64{p.Trials[0].Capacity, p.Trials[1].Capacity, p.Trials[2].Capacity}
	st := results.Summarize([]*results.PhaseResult{p})
	if p.Search == nil || st.Capacity != p.Search.Capacity {
		t.Fatalf("stats capacity %v, the merged phase's search %+v: want the median trial's", st.Capacity, p.Search)
	}
	// The merged phase shows the median trial's search, the second.
	checkProbes(t, ph.Search, &results.PhaseResult{Search: p.Search, Counters: results.Counters{Requests: requestsOf(p.Search)}})
	if caps[0] != 200 || caps[1] != 150 || caps[2] != 0 || st.Capacity != 150 || len(p.Search.Probes) != 3 {
		t.Errorf("trial capacities %v median %v, want [200 150 0] and 150", caps, st.Capacity)
	}
}

func requestsOf(s *results.SearchResult) int64 {
	var n int64
	for _, p := range s.Probes {
		n += p.Requests
	}
	return n
}

func TestSearchWithoutSLOJudgeFailsBeforeLoad(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL)},
		scenarios.Phase{Name: "warm", Warmup: true, Concurrency: 1, Requests: 5},
		searchPhase(scenarios.Search{From: 100, Max: 200, Precision: 0.5}))
	_, err := Run(context.Background(), sc, Config{})
	if !errors.Is(err, errNoSLOJudge) || !strings.Contains(err.Error(), `phase "capacity"`) {
		t.Errorf("err = %v, want the missing SLO judge named with its phase", err)
	}
	if n := srv.requests.Load(); n != 0 {
		t.Errorf("server saw %d requests before the run was refused", n)
	}
}

func TestJudgeProbe(t *testing.T) {
	measured := func(saturated bool) *results.PhaseResult {
		r := &results.PhaseResult{Latency: results.NewHistogram(), Elapsed: 10 * time.Second,
			Counters: results.Counters{Requests: 1000, Succeeded: 900, Failed: 100}}
		for range 900 {
			r.Latency.Record(10 * time.Millisecond)
		}
		if saturated {
			r.Generator = results.Generator{Saturated: true, Reason: "cpu 95%"}
		}
		return r
	}
	slo := func(passed bool, err error) Judge {
		return Judge{SLO: func(*scenarios.Case, *scenarios.Phase, results.Stats) (bool, string, error) {
			return passed, "error_rate = 0.1", err
		}}
	}
	// 900 succeeded requests in 10s: 92/s sent is kept up with within the
	// default 5% precision, 120/s is not.
	tests := []struct {
		name      string
		r         *results.PhaseResult
		judge     Judge
		rate      float64
		passed    bool
		saturated bool
		reason    string
	}{
		{"passes", measured(false), slo(true, nil), 92, true, false, ""},
		{"fails with the values", measured(false), slo(false, nil), 92, false, false, "error_rate = 0.1"},
		{"a rule error fails", measured(false), slo(true, errors.New("no such metric")), 92, false, false, "no such metric"},
		{"saturation wins over a pass", measured(true), slo(true, nil), 92, false, true, "cpu 95%"},
		{"a server short of the rate fails though the SLO held", measured(false), slo(true, nil), 120, false, false,
			"error_rate = 0.1 (the SLO held) but the server answered 90/s of the 120/s sent: short by more than the 5% precision, so its backlog grows and a longer step would break the SLO"},
	}
	ignore := &scenarioRun{Config: Config{Judge: slo(true, nil)}, ignoreSaturation: true}
	if p := judgeProbe(&scenarios.Case{}, &scenarios.Phase{}, ignore, ProbeGrow, 90, measured(true)); !p.Passed || p.Saturated {
		t.Errorf("with saturation ignored, probe %+v, want passed", p)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &scenarioRun{Config: Config{Judge: tt.judge}}
			p := judgeProbe(&scenarios.Case{}, &scenarios.Phase{}, run, ProbeBisect, tt.rate, tt.r)
			if p.Passed != tt.passed || p.Saturated != tt.saturated || p.Reason != tt.reason {
				t.Errorf("probe %+v, want passed %v saturated %v reason %q", p, tt.passed, tt.saturated, tt.reason)
			}
			if p.Rate != tt.rate || p.Kind != ProbeBisect || p.Achieved != 90 || p.ErrorRate != 0.1 || p.P99 < 9*time.Millisecond {
				t.Errorf("probe figures %+v, want rate %v, achieved 90/s, error rate 0.1, p99 ≈ 10ms", p, tt.rate)
			}
		})
	}
}

func TestKeptUp(t *testing.T) {
	for _, tc := range []struct {
		name                string
		rate, achieved, prc float64
		step                time.Duration
		want                bool
	}{
		{"answered the rate", 1000, 990, 0.05, 2 * time.Second, true},
		{"short by the precision exactly", 1000, 950, 0.05, 2 * time.Second, true},
		{"short by more than the precision", 1000, 900, 0.05, 2 * time.Second, false},
		// 15 arrivals cannot measure a rate to 30%: no evidence, no failure.
		{"too few arrivals to tell", 150, 60, 0.3, 100 * time.Millisecond, true},
		{"a low rate over a long step", 400, 300, 0.05, 20 * time.Second, false},
	} {
		if got := keptUp(tc.rate, tc.achieved, tc.prc, tc.step); got != tc.want {
			t.Errorf("%s: keptUp(%v, %v, %v, %v) = %v, want %v", tc.name, tc.rate, tc.achieved, tc.prc, tc.step, got, tc.want)
		}
	}
}
