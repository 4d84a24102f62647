package assertions

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// A division by zero (or by NaN) is an error verdict that fails the run,
// never a pass on +Inf nor a false on NaN, for `/` and `%` alike; other
// divisions judge as before.
func TestJudgeDivisionByZero(t *testing.T) {
	busy := load{latency: 2 * time.Millisecond, n: 100, failed: 2}
	idle := load{}
	tests := []struct {
		rule       string
		load       load
		want       results.Status
		wantReason string
	}{
		{"rps / 0 > 1", busy, results.StatusError, "division by zero in `rps / 0`"},
		{"requests % 0 == 0", busy, results.StatusError, "division by zero in `requests % 0`"},
		{"1/0 < 5", busy, results.StatusError, "division by zero in `1/0`"},
		{"0.0 / 0.0 != 1", busy, results.StatusError, "division by zero in `0.0 / 0.0`"},
		{"failed / requests < 1%", idle, results.StatusError, "division by zero in `failed / requests`"},
		{"error_rate < 1% && failed % requests == 0", idle, results.StatusError, "division by zero in `failed % requests`"},
		{"(rps + 1) / (requests - requests) > 1", busy, results.StatusError, "division by zero in `(rps + 1) / (requests - requests)`"},
		{"p(99) / 0 < 5ms", busy, results.StatusError, "division by zero in `p(99) / 0`"},
		{"p99 / 0ms < 2", busy, results.StatusError, "division by zero in `p99 / 0ms`"},
		{"p99 / (p50 - p50) < 2", busy, results.StatusError, "division by zero in `p99 / (p50 - p50)`"},
		{"rps / matrix.concurrency > 1", busy, results.StatusError, "division by zero in `rps / matrix.concurrency`"},
		// Not by zero: unchanged.
		{"requests > 0 && failed / requests < 1%", idle, results.StatusFail, ""},
		{"failed / requests < 3%", busy, results.StatusPass, ""},
		{"failed / requests < 1%", busy, results.StatusFail, ""},
		{"requests % 7 == 2", busy, results.StatusPass, ""},
		{"p99 / 2 == 1ms", busy, results.StatusPass, ""},
		{"p99 / p50 == 1", busy, results.StatusPass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			rules := mustCompile(t, at(3, 5, tt.rule))
			c := caseOf("web", 0, phase("steady", false, time.Second, tt.load))
			vs := rules.Judge(&results.ScenarioResult{Cases: []*results.CaseResult{c}}, JudgeOptions{})
			if len(vs) != 1 {
				t.Fatalf("%d verdicts", len(vs))
			}
			v := vs[0]
			if v.Status != tt.want || v.Reason != tt.wantReason {
				t.Errorf("status %s, reason %q; want %s, %q", v.Status, v.Reason, tt.want, tt.wantReason)
			}
			if fails := tt.want != results.StatusPass; v.Fails() != fails {
				t.Errorf("Fails() = %v, want %v", v.Fails(), fails)
			}
		})
	}
}

// A warn-level rule that divides by zero is an error too, reported but
// not failing the run, like any other warn-level problem.
func TestJudgeDivisionByZeroWarn(t *testing.T) {
	th := at(3, 5, "rps / 0 > 1")
	th.Severity = scenarios.SeverityWarn
	c := caseOf("web", 1, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 10}))
	v := mustCompile(t, th).Judge(&results.ScenarioResult{Cases: []*results.CaseResult{c}}, JudgeOptions{})[0]
	if v.Status != results.StatusError || v.Fails() {
		t.Errorf("status %s, fails %v; want error, not failing", v.Status, v.Fails())
	}
}
