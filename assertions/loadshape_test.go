package assertions

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// TestSameJobABOfDifferentLoadsIsIncomparable gives the candidate target's
// cases another concurrency than the reference's: the pair measured two
// loads, whatever the targets hit, so the comparison is not judged.
func TestSameJobABOfDifferentLoadsIsIncomparable(t *testing.T) {
	noRegress := at(2, 5, `!regressed("p50", 10%)`)
	both := at(3, 5, `!regressed("p50", 10%) && p99 < 1ms`)
	sc := abScenario([]string{"pr"}, noRegress, both)
	for i := range sc.Cases {
		workers := 4
		if sc.Cases[i].Target.Name == "pr" {
			workers = 8
		}
		sc.Cases[i].Phases = []scenarios.Phase{{Name: "measured", Duration: time.Second, Concurrency: workers, Trials: 5}}
	}
	vs := judgeAB(t, sc, JudgeOptions{}, abCase("main", 1, fast...), abCase("pr", 1, slow...))
	want := map[string]struct {
		status results.Status
		reason string
	}{
		// Only the comparison could fail it: withheld.
		`!regressed("p50", 10%)`: {results.StatusIncomparable, results.ReasonIncomparableTarget + "concurrency 4 → 8"},
		// A p99 of 6ms fails whatever the comparison says.
		`!regressed("p50", 10%) && p99 < 1ms`: {results.StatusFail, "judged without the comparison, which does not decide it (" + results.ReasonIncomparableTarget + "concurrency 4 → 8)"},
	}
	seen := 0
	for _, v := range vs {
		if v.Target != "pr" {
			continue
		}
		seen++
		w := want[v.Rule]
		if v.Status != w.status || v.Reason != w.reason {
			t.Errorf("%s: %s %q, want %s %q", v.Rule, v.Status, v.Reason, w.status, w.reason)
		}
	}
	if seen != len(want) {
		t.Errorf("%d verdicts of pr, want %d: %+v", seen, len(want), vs)
	}
}
