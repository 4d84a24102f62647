package assertions

import (
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

// A baseline case that cannot decide (too few runs of main at its latest
// level) leaves every comparison open: a rule hanging on one is
// inconclusive for the baseline's reason, and one that holds either way
// is judged on the case alone.
func TestUndecidedBaselineCase(t *testing.T) {
	base := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000, 1010, 990, 1005, 995))
	cand := caseOf("web", 10, trialRun("steady", time.Millisecond, 500, 505, 495, 498, 503))
	const why = "main's latest level holds 2 run(s) of this case"
	for _, tc := range []struct {
		name, rule string
		status     results.Status
		reason     string
	}{
		{"regressed", `!regressed("rps", 5%)`, results.StatusInconclusive, why},
		{"holds either way", `!regressed("rps", 5%) || p99 < 1h`, results.StatusPass, "judged without the comparison, which does not decide it (" + why},
		{"fails either way", `!regressed("rps", 5%) && p99 < 1ns`, results.StatusFail, "judged without the comparison"},
		{"baseline figures", `rps > baseline.rps * 0.9`, results.StatusInconclusive, why},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := testScenario(at(2, 5, tc.rule))
			bc := results.NewBaselineCase(base.Measured(""))
			bc.Undecided = why
			fb := &fakeBaseline{cases: map[string]results.BaselineCase{"load|" + base.ID + "|": bc}}
			rules, err := Compile(sc)
			if err != nil {
				t.Fatal(err)
			}
			vs := rules.Judge(&results.ScenarioResult{Scenario: sc, Cases: []*results.CaseResult{cand}}, JudgeOptions{Baseline: fb, FailOnInconclusive: true})
			v := vs[0]
			if v.Status != tc.status || !strings.Contains(v.Reason, tc.reason) {
				t.Fatalf("got %s %q, want %s with %q", v.Status, v.Reason, tc.status, tc.reason)
			}
			if tc.status == results.StatusInconclusive && !v.Fails() {
				t.Fatal("--fail-on-inconclusive does not fail an undecided comparison")
			}
		})
	}
}
