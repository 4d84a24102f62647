package reporters

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// checkFlowFields spells out what the shop-api flow must carry after a
// round trip through results.json, so that a field lost on both sides
// cannot pass as equal.
func checkFlowFields(t *testing.T, sr *results.ScenarioRun) {
	t.Helper()
	if len(sr.Cases) != 1 {
		t.Fatalf("shop-api: %d cases, want 1", len(sr.Cases))
	}
	c := sr.Cases[0]
	it := c.Stats.Iterations
	const n, fails = flowIterations * flowMeasuredSecs, flowExtractFails * flowMeasuredSecs
	if it == nil || it.Iterations != n || it.Failed != fails || it.Succeeded != n-fails || it.RPS != float64(n-fails)/flowMeasuredSecs || it.Latency.P99 == 0 {
		t.Fatalf("shop-api: Stats.Iterations = %+v", it)
	}
	if p := c.Phases[0].Iterations; p == nil || p.Latency == nil || p.Latency.Count() != n-fails {
		t.Errorf("shop-api: the phase's iterations lost their histogram: %+v", p)
	}
	var names []string
	for _, s := range c.ByName {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "list get order" {
		t.Fatalf("shop-api: by_name steps %v, want list get order", names)
	}
	list, get := c.ByName[0], c.ByName[1]
	if list.Requests != n || list.Failed != fails || list.Errors.Extract != fails || list.Latency.P99 == 0 {
		t.Errorf("shop-api: list = %+v", list)
	}
	// Iterations that failed at list never sent get.
	if get.Requests != n-fails || get.Failed != 0 || get.RPS != float64(n-fails)/flowMeasuredSecs {
		t.Errorf("shop-api: get = %+v", get)
	}
}

func TestFlowRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := results.WriteJSON(&b, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadRun(&b)
	if err != nil {
		t.Fatal(err)
	}
	checkFlowFields(t, got.Scenarios[3])
}

// TestReadRunDerivesByName reads a document written before by_name
// existed: the steps' figures come from the phases.
func TestReadRunDerivesByName(t *testing.T) {
	run := fixtureRun()
	for _, sr := range run.Scenarios {
		for _, c := range sr.Cases {
			c.ByName = nil
		}
	}
	var b bytes.Buffer
	if err := results.WriteJSON(&b, run); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `"by_name": [`+"\n"+`        {`) {
		t.Fatal("by_name still written at case level")
	}
	got, err := results.ReadRun(&b)
	if err != nil {
		t.Fatal(err)
	}
	checkFlowFields(t, got.Scenarios[3])
	if c := got.Scenarios[0].Cases[0]; c.ByName != nil {
		t.Errorf("a single-request case grew by_name: %+v", c.ByName)
	}
}

func TestReadRunRejectsFlowFigures(t *testing.T) {
	phase := func(extra string) string {
		return `{"schema": 1, "scenarios": [{"name": "s", "cases": [{"id": "a", "phases": [{"name": "m", "requests": 3, "succeeded": 3` + extra + `}]}]}]}`
	}
	stats := func(extra string) string {
		return `{"schema": 1, "scenarios": [{"name": "s", "cases": [{"id": "a", "stats": {"requests": 3, "succeeded": 3` + extra + `}}]}]}`
	}
	named := func(entry string) string {
		return `{"schema": 1, "scenarios": [{"name": "s", "cases": [{"id": "a", "by_name": [` + entry + `]}]}]}`
	}
	tests := []struct {
		name, doc, want string
	}{
		{"phase iterations do not add up", phase(`, "iterations": {"iterations": 5, "succeeded": 3, "failed": 1}`),
			`phase "m": iterations: succeeded 3 + failed 1 is not iterations 5`},
		{"negative phase iterations", phase(`, "iterations": {"iterations": -1, "succeeded": 0, "failed": -1}`),
			`phase "m": iterations is negative (-1)`},
		{"stats iterations do not add up", stats(`, "iterations": {"iterations": 10, "succeeded": 10, "failed": 1}`),
			"iterations: succeeded 10 + failed 1 is not iterations 10"},
		{"absurd iterations rps", stats(`, "iterations": {"iterations": 1, "succeeded": 1, "failed": 0, "rps": 1e300}`),
			"iterations.rps is 1e+300, beyond any measurable value"},
		{"negative iteration latency", stats(`, "iterations": {"iterations": 1, "succeeded": 1, "failed": 0, "latency": {"p99_ns": -5}}`),
			"iterations.latency is a negative duration"},
		{"step counters do not add up", named(`{"name": "get", "requests": 4, "succeeded": 3, "failed": 0}`),
			`request "get": succeeded 3 + failed 0 is not requests 4`},
		{"step error rate above 1", named(`{"name": "get", "requests": 1, "succeeded": 1, "failed": 0, "error_rate": 2}`),
			`request "get": error_rate is 2, beyond any measurable value`},
		{"null step", phase(`, "by_name": [null]`), `phase "m": null request entry`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := results.ReadRun(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestReadRunFillsMissingFlowHistograms(t *testing.T) {
	doc := `{"schema": 1, "scenarios": [{"name": "s", "cases": [{"id": "a", "phases": [{"name": "m", "requests": 3, "succeeded": 3,
		"by_name": [{"name": "get", "requests": 3, "succeeded": 3}], "iterations": {"iterations": 3, "succeeded": 3, "failed": 0}}]}]}]}`
	run, err := results.ReadRun(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	p := run.Scenarios[0].Cases[0].Phases[0]
	if p.ByName[0].Latency == nil || p.Iterations.Latency == nil {
		t.Fatalf("histograms not filled: %+v %+v", p.ByName[0], p.Iterations)
	}
	// Every report renders it without a crash.
	for name, write := range map[string]func(*bytes.Buffer, *results.Run) error{
		"markdown": func(b *bytes.Buffer, r *results.Run) error { return WriteMarkdown(b, r) },
		"junit":    func(b *bytes.Buffer, r *results.Run) error { return WriteJUnit(b, r) },
	} {
		var b bytes.Buffer
		if err := write(&b, run); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCompareFlowRows(t *testing.T) {
	run := fixtureRun()
	c, err := assertions.Compare(run, run, assertions.CompareOptions{Tolerance: 0.05, BaseName: "a.json", NewName: "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"| iterations_rps | 997.0 | 997.0 | 0.0% |",
		"| iteration p99 | 11.9ms | 11.9ms | 0.0% |",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("comparison lacks %q:\n%s", w, out)
		}
	}
	// Only the flow case has iterations: one row each, not a row of zeros
	// for every other case.
	if n := strings.Count(out, "| iterations_rps |"); n != 1 {
		t.Errorf("%d iterations_rps rows, want 1 (the flow case's)", n)
	}

	// A side that ran no flow (the target before it became one): no row.
	plain := fixtureRun()
	shop := plain.Scenarios[3].Cases[0]
	shop.Stats.Iterations = nil
	c, err = assertions.Compare(plain, run, assertions.CompareOptions{Tolerance: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "iterations_rps") {
		t.Errorf("comparison shows iterations against a side without a flow:\n%s", b.String())
	}
}

// TestConsoleFlowNothingSucceeded: a flow whose every iteration failed at
// its first step shows dashes, not zero latencies.
func TestConsoleFlowNothingSucceeded(t *testing.T) {
	n := &results.NamedResult{Name: "login-free", Latency: results.NewHistogram()}
	n.Requests, n.Failed = 5, 5
	n.Errors.Status += 5
	p := &results.PhaseResult{Name: "m", Elapsed: 1e9, Latency: results.NewHistogram(), Connect: results.NewHistogram(),
		ByName: []*results.NamedResult{n}, Iterations: &results.IterationResult{Iterations: 5, Failed: 5, Latency: results.NewHistogram()}}
	p.Counters = n.Counters
	var b bytes.Buffer
	consoleFlow(&b, results.Summarize([]*results.PhaseResult{p}), results.NamedStatsOf([]*results.PhaseResult{p}))
	out := b.String()
	for _, w := range []string{"login-free         5  0.00         —         —       5", "login-free failed: status 5", "Complete iterations:    5 (5 failed"} {
		if !strings.Contains(out, w) {
			t.Errorf("lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "Time per iteration") {
		t.Errorf("shows a time per iteration with none succeeded:\n%s", out)
	}
}

// TestFlowRulesAgainstBaselineFile judges flow rules against a baseline
// read back from results.json: the steps and iterations survive the file,
// and a baseline case without a flow skips rather than compares zeros.
func TestFlowRulesAgainstBaselineFile(t *testing.T) {
	var b bytes.Buffer
	if err := results.WriteJSON(&b, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	read := func(t *testing.T, doc string) *results.Baseline {
		t.Helper()
		run, err := results.ReadRun(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		return results.NewBaseline("base.json", []string{"base.json"}, []*results.Run{run})
	}
	sc := flowScenarioFixture()
	sc.Thresholds = []scenarios.Threshold{
		{Rule: "iteration.p99 <= baseline.iteration.p99 && iterations_rps >= baseline.iterations_rps * 0.9"},
		{Rule: `requests_by_name["get"].p99 <= baseline.p99`},
	}
	rules, err := assertions.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := flowResult()
	res.Scenario = sc
	vs := rules.Judge(res, assertions.JudgeOptions{Baseline: read(t, doc)})
	for _, v := range vs {
		if v.Status != results.StatusPass {
			t.Errorf("%s: %s %s (%s)", v.Rule, v.Status, v.Reason, v.Actual)
		}
	}
	if !strings.Contains(vs[0].Actual, "baseline.iteration.p99 = 11.9ms") {
		t.Errorf("actual %q lacks the baseline's iteration p99", vs[0].Actual)
	}

	// The same baseline with its iterations removed, as a run from before
	// the target became a flow would have written it.
	var plain map[string]any
	if err := json.Unmarshal([]byte(doc), &plain); err != nil {
		t.Fatal(err)
	}
	shop := plain["scenarios"].([]any)[3].(map[string]any)["cases"].([]any)[0].(map[string]any)
	delete(shop["stats"].(map[string]any), "iterations")
	for _, p := range shop["phases"].([]any) {
		delete(p.(map[string]any), "iterations")
	}
	stripped, err := json.Marshal(plain)
	if err != nil {
		t.Fatal(err)
	}
	vs = rules.Judge(res, assertions.JudgeOptions{Baseline: read(t, string(stripped))})
	if vs[0].Status != results.StatusSkip || vs[0].Reason != assertions.ReasonNoBaselineFlow {
		t.Errorf("against a baseline without a flow: %s %q, want skip %q", vs[0].Status, vs[0].Reason, assertions.ReasonNoBaselineFlow)
	}
	if vs[1].Status != results.StatusPass {
		t.Errorf("a step rule against a baseline without a flow: %s %s", vs[1].Status, vs[1].Reason)
	}
}
