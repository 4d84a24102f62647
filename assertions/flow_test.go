package assertions

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// flowScenario is testScenario with a third target, shop, that runs a
// flow: login in setup, then list, get and order. withRequests fills
// HTTPTarget.Requests with the steps, as the parser does.
func flowScenario(withRequests bool, ths ...scenarios.Threshold) *scenarios.Scenario {
	sc := testScenario(ths...)
	flow := &scenarios.Flow{
		Setup: []scenarios.Step{{Name: "login"}},
		Steps: []scenarios.Step{{Name: "list"}, {Name: "get"}, {Name: "order"}},
	}
	ht := &scenarios.HTTPTarget{Flow: flow}
	if withRequests {
		for _, st := range flow.Steps {
			ht.Requests = append(ht.Requests, scenarios.HTTPRequest{Name: st.Name, Weight: 1})
		}
	}
	shop := scenarios.Target{Name: "shop", HTTP: ht}
	sc.Targets = append(sc.Targets, shop)
	sc.Cases = append(sc.Cases, scenarios.Case{ID: "shop", Target: shop, Phases: sc.Cases[0].Phases})
	return sc
}

func TestCompileFlowStepNames(t *testing.T) {
	tests := []struct {
		name string
		rule string
		want string // "" when the rule compiles
	}{
		{"a step", `requests_by_name["get"].p99 < 50ms`, ""},
		{"a step, dotted", `requests_by_name.order.errors.extract == 0`, ""},
		{"a request of the mix still", `requests_by_name["login"].p99 < 50ms`, ""},
		{"iteration figures", `iterations > 0 && iterations_rps > 10 && iteration.p99 < 1s && iteration.p50 <= iteration.max`, ""},
		{"extract errors", `errors.extract == 0 && baseline.errors.extract == 0`, ""},
		{"baseline iterations", `iterations_rps >= baseline.iterations_rps * 0.9`, ""},
		{"misspelt step", `requests_by_name["gett"].p99 < 50ms`,
			`load.yaml:2:22: invalid rule: unknown request name "gett" (known: login, browse, list, get, order)`},
		{"unknown iteration field", `iteration.p98 < 1s`,
			`load.yaml:2:15: invalid rule: unknown field "p98" (known: min, mean, max, stddev, p50, p90, p95, p99, p999)`},
		{"misspelt figure", `iteratons > 0`,
			`load.yaml:2:5: invalid rule: unknown name "iteratons"; did you mean iterations?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, withRequests := range []bool{true, false} {
				_, err := Compile(flowScenario(withRequests, at(2, 5, tt.rule)))
				got := ""
				if err != nil {
					got = err.Error()
				}
				if got != tt.want {
					t.Errorf("withRequests=%v: got %q, want %q", withRequests, got, tt.want)
				}
			}
		})
	}
}

func TestCompileFlowSetupStepIsNotMeasured(t *testing.T) {
	// A scenario whose only named requests are a flow's: login is its
	// setup step, which no rule can read.
	sc := flowScenario(true, at(2, 5, `requests_by_name["login"].p99 < 50ms`))
	sc.Targets, sc.Cases = sc.Targets[2:], sc.Cases[2:]
	_, err := Compile(sc)
	want := `load.yaml:2:22: invalid rule: "login" is a setup step, which is not measured (steps: list, get, order)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// flowPhase is a measured phase of a flow: n iterations of list, get and
// order, failed of which ended at order with an extract error. Each step
// takes step, an iteration 3 × step.
func flowPhase(name string, n, failed int64, step time.Duration) *results.PhaseResult {
	p := phase(name, false, time.Second, load{})
	p.Latency, p.FailedLatency = results.NewHistogram(), results.NewHistogram()
	for i, s := range []string{"list", "get", "order"} {
		nr := &results.NamedResult{Name: s, Latency: results.NewHistogram()}
		nr.Requests, nr.Succeeded = n, n
		if s == "order" {
			nr.Succeeded, nr.Failed = n-failed, failed
			nr.Errors.Extract += failed
		}
		lat := step * time.Duration(i+1)
		for range nr.Succeeded {
			nr.Latency.Record(lat)
			p.Latency.Record(lat)
		}
		p.Counters.Merge(nr.Counters)
		p.ByName = append(p.ByName, nr)
	}
	it := &results.IterationResult{Iterations: n, Succeeded: n - failed, Failed: failed, Latency: results.NewHistogram()}
	for range it.Succeeded {
		it.Latency.Record(6 * step)
	}
	p.Iterations = it
	return p
}

func TestJudgeFlow(t *testing.T) {
	rules := []string{
		"iterations == 100 && iterations_rps == 90",
		"iteration.p99 < 5ms",
		`requests_by_name["get"].p99 < 50ms && requests_by_name["get"].rps == 100`,
		`requests_by_name["order"].errors.extract == 0`,
		"errors.extract < 20",
		"rps > 0",
	}
	var ths []scenarios.Threshold
	for i, r := range rules {
		ths = append(ths, at(2+i, 5, r))
	}
	sc := flowScenario(true, ths...)
	res := &results.ScenarioResult{Scenario: sc, Cases: []*results.CaseResult{
		{ID: "shop", Target: "shop", Phases: []*results.PhaseResult{flowPhase("steady", 100, 10, time.Millisecond)}},
		// Not a flow: its zero iterations must not pass iteration.p99 < 5ms.
		{ID: "web", Target: "web", Phases: []*results.PhaseResult{phase("steady", false, time.Second, load{latency: time.Millisecond, n: 10})}},
	}}
	compiled, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := []brief{
		{Case: "shop", Rule: rules[0], Status: results.StatusPass, Actual: "iterations = 100, iterations_rps = 90"},
		{Case: "shop", Rule: rules[1], Status: results.StatusFail, Actual: "iteration.p99 = 6ms"},
		{Case: "shop", Rule: rules[2], Status: results.StatusPass, Actual: `requests_by_name["get"].p99 = 2ms, requests_by_name["get"].rps = 100`},
		{Case: "shop", Rule: rules[3], Status: results.StatusFail, Actual: `requests_by_name["order"].errors.extract = 10`},
		{Case: "shop", Rule: rules[4], Status: results.StatusPass, Actual: "errors.extract = 10"},
		{Case: "shop", Rule: rules[5], Status: results.StatusPass, Actual: "rps = 290"},

		{Case: "web", Rule: rules[0], Status: results.StatusSkip, Reason: ReasonNoFlow},
		{Case: "web", Rule: rules[1], Status: results.StatusSkip, Reason: ReasonNoFlow},
		{Case: "web", Rule: rules[2], Status: results.StatusSkip, Reason: `target "web" has no request named "get"`},
		{Case: "web", Rule: rules[3], Status: results.StatusSkip, Reason: `target "web" has no request named "order"`},
		{Case: "web", Rule: rules[4], Status: results.StatusPass, Actual: "errors.extract = 0"},
		{Case: "web", Rule: rules[5], Status: results.StatusPass, Actual: "rps = 10"},
	}
	if diff := cmp.Diff(want, briefs(compiled.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeBaselineFlow(t *testing.T) {
	ths := at(2, 5, "iteration.p99 <= baseline.iteration.p99 * 1.1")
	flowCase := func(step time.Duration) *results.CaseResult {
		return caseOf("web", 10, flowPhase("steady", 100, 0, step))
	}
	plain := caseOf("web", 10, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 10}))
	tests := []struct {
		name       string
		base, cand *results.CaseResult
		status     results.Status
		reason     string
	}{
		{"both flows, faster", flowCase(time.Millisecond), flowCase(time.Millisecond), results.StatusPass, ""},
		{"both flows, slower", flowCase(time.Millisecond), flowCase(2 * time.Millisecond), results.StatusFail, ""},
		// A baseline from before the target became a flow: nothing to compare.
		{"baseline without flow", plain, flowCase(time.Millisecond), results.StatusSkip, ReasonNoBaselineFlow},
		{"candidate without flow", flowCase(time.Millisecond), plain, results.StatusSkip, ReasonNoFlow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := judgeAgainst(t, tt.base, tt.cand, JudgeOptions{}, ths)
			if vs[0].Status != tt.status || vs[0].Reason != tt.reason {
				t.Errorf("got %s %q (%s), want %s %q", vs[0].Status, vs[0].Reason, vs[0].Actual, tt.status, tt.reason)
			}
			if tt.status != results.StatusSkip && !strings.Contains(vs[0].Actual, "baseline.iteration.p99 = ") {
				t.Errorf("actual %q does not show the baseline's iteration p99", vs[0].Actual)
			}
		})
	}
}
