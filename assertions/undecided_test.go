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

// Against several runs of main, a candidate run whose trials differ from
// the pooled trials only by as much as main's runs differ from each other
// is one run's luck: inconclusive, not a regression.
func TestRegressionWeighedAgainstMainsRuns(t *testing.T) {
	base := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000, 1001, 999, 1000, 1002))
	cand := caseOf("web", 10, trialRun("steady", time.Millisecond, 900, 901, 899, 900, 902))
	for _, tc := range []struct {
		name   string
		runs   []float64
		status results.Status
		reason string
	}{
		{"steady runs", []float64{1000, 1003, 997, 1001, 999}, results.StatusFail, "beyond main's run-to-run spread"},
		{"runs as far apart as the change", []float64{1000, 1120, 880, 1080, 920}, results.StatusInconclusive, "within main's run-to-run spread"},
		{"one document, no runs", nil, results.StatusFail, "significant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := testScenario(at(2, 5, `!regressed("rps", 5%)`))
			bc := results.NewBaselineCase(base.Measured(""))
			for _, r := range tc.runs {
				bc.Runs = append(bc.Runs, results.Trial{RPS: r, Requests: int64(r)})
			}
			fb := &fakeBaseline{cases: map[string]results.BaselineCase{"load|" + base.ID + "|": bc}}
			rules, err := Compile(sc)
			if err != nil {
				t.Fatal(err)
			}
			v := rules.Judge(&results.ScenarioResult{Scenario: sc, Cases: []*results.CaseResult{cand}}, JudgeOptions{Baseline: fb})[0]
			if v.Status != tc.status || !strings.Contains(v.Reason, tc.reason) {
				t.Fatalf("got %s %q, want %s with %q", v.Status, v.Reason, tc.status, tc.reason)
			}
		})
	}
}
