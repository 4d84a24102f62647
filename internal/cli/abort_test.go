package cli

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestAbortedRunReason(t *testing.T) {
	stopped := &results.PhaseResult{Name: "steady", Aborted: &results.Aborted{Case: "api", Phase: "steady", Name: "p99 < 500ms",
		Rule: "p99 < 500ms", At: 3400 * time.Millisecond, Window: 10 * time.Second, Actual: "p99 = 812ms"}}
	whole := &results.PhaseResult{Name: "steady", Aborted: &results.Aborted{Case: "api", Phase: "steady", Name: "errors",
		Rule: "error_rate < 1%", At: 2 * time.Second}}
	input := func(phases ...*results.PhaseResult) results.ScenarioInput {
		return results.ScenarioInput{Scenario: &scenarios.Scenario{Name: "s"},
			Result: &results.ScenarioResult{Cases: []*results.CaseResult{{ID: "api", Phases: phases}}}}
	}
	tests := []struct {
		name   string
		inputs []results.ScenarioInput
		want   string
	}{
		{"none", []results.ScenarioInput{input(&results.PhaseResult{Name: "steady"}), {}}, ""},
		{"window", []results.ScenarioInput{input(&results.PhaseResult{Name: "warm"}, stopped)},
			`s: aborted at 3.4s into phase steady of case api: p99 < 500ms failed over the last 10s: p99 = 812ms`},
		{"whole phase, first of two", []results.ScenarioInput{{}, input(whole), input(stopped)},
			`s: aborted at 2.0s into phase steady of case api: errors: error_rate < 1% failed over the phase so far`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := aborted(tc.inputs); got != tc.want {
				t.Errorf("aborted = %q\nwant      %q", got, tc.want)
			}
		})
	}
}
