package results

import (
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// capacityGolden is the capacity-search results document the reporters'
// golden tests write: two searching cases and an aborted scenario.
func capacityGolden(t *testing.T) *Run {
	t.Helper()
	run, err := ReadRunFile(filepath.Join(reportersTestdata, "capacity-results.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestMergePhaseSearchAndAbort(t *testing.T) {
	part := func(capacity float64, abortAt time.Duration) *PhaseResult {
		p := capacityGolden(t).Scenarios[0].Cases[0].Phases[0]
		p.Search = &SearchResult{Probes: p.Search.Probes[:2], Capacity: capacity, Pass: capacity, Fail: capacity * 1.04}
		p.Trials = []Trial{{Capacity: capacity, Elapsed: time.Second}, {Capacity: capacity + 10, Elapsed: time.Second}}
		if abortAt > 0 {
			p.Aborted = &Aborted{Name: "p99 < 50ms", At: abortAt}
		}
		return p
	}
	m := mergePhase([]*PhaseResult{part(2000, 4*time.Second), part(3000, 2*time.Second)}, nil)
	if m.Search == nil || m.Search.Capacity != 5000 {
		t.Fatalf("merged search %+v, want capacity 5000", m.Search)
	}
	if len(m.Trials) != 2 || m.Trials[0].Capacity != 5000 || m.Trials[1].Capacity != 5020 {
		t.Errorf("trial capacities %+v, want 5000 and 5020", m.Trials)
	}
	if m.Aborted == nil || m.Aborted.At != 2*time.Second {
		t.Errorf("aborted %+v, want the earliest (2s)", m.Aborted)
	}
}

func TestValidateSearch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(c *CaseRun)
	}{
		{"negative probe rate", func(c *CaseRun) { c.Phases[0].Search.Probes[0].Rate = -1 }},
		{"infinite achieved", func(c *CaseRun) { c.Phases[0].Search.Probes[1].Achieved = math.Inf(1) }},
		{"NaN capacity", func(c *CaseRun) { c.Phases[0].Search.Capacity = math.NaN() }},
		{"negative p99", func(c *CaseRun) { c.Phases[0].Search.Probes[2].P99 = -time.Millisecond }},
		{"negative stats capacity", func(c *CaseRun) { c.Stats.Capacity = -5 }},
		{"error rate above 1", func(c *CaseRun) { c.Phases[0].Search.Probes[0].ErrorRate = 2 }},
		{"negative trial capacity", func(c *CaseRun) { c.Phases[0].Trials = []Trial{{Capacity: -1}} }},
		{"negative abort time", func(c *CaseRun) { c.Phases[0].Aborted = &Aborted{At: -time.Second} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := capacityGolden(t)
			if err := validate(run); err != nil {
				t.Fatalf("the fixture itself is refused: %v", err)
			}
			tc.spoil(run.Scenarios[0].Cases[0])
			if err := validate(run); !errors.Is(err, ErrInvalidResults) {
				t.Errorf("validate = %v, want ErrInvalidResults", err)
			}
		})
	}
}
