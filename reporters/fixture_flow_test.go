package reporters

import (
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// The shop-api scenario is a flow (SPEC §12): every virtual user logs in
// once in setup, which is not measured, then each iteration lists items,
// gets one and orders it. list's extraction of an item id finds nothing
// in flowExtractFails responses, which ends those iterations before get
// and order are sent.
const (
	flowFile          = "testdata/shop.yaml"
	flowIterations    = 1000 // per second of the measured phase
	flowExtractFails  = 3    // per second
	flowMeasuredSecs  = 10
	flowExtractSample = `extract item: json path "items.0.id" matched nothing`
)

// flowSteps are the steps in order with each one's latency scale.
var flowSteps = []struct {
	name string
	base time.Duration
}{
	{"list", 2 * time.Millisecond},
	{"get", time.Millisecond},
	{"order", 3 * time.Millisecond},
}

func flowScenarioFixture() *scenarios.Scenario {
	flow := &scenarios.Flow{Setup: []scenarios.Step{{Name: "login", Method: "POST"}}}
	ht := &scenarios.HTTPTarget{Flow: flow}
	for _, s := range flowSteps {
		flow.Steps = append(flow.Steps, scenarios.Step{Name: s.name, Method: "GET"})
		ht.Requests = append(ht.Requests, scenarios.HTTPRequest{Name: s.name, Weight: 1})
	}
	shop := scenarios.Target{Name: "shop", HTTP: ht}
	pos := func(line int) scenarios.Pos { return scenarios.Pos{File: flowFile, Line: line, Col: 5} }
	th := func(line int, rule string) scenarios.Threshold {
		return scenarios.Threshold{Name: rule, Rule: rule, Severity: scenarios.SeverityFail, Pos: pos(line), RulePos: pos(line)}
	}
	return &scenarios.Scenario{
		File:        flowFile,
		Hash:        "486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7",
		Name:        "shop-api",
		Description: "log in, list items, get one, order it",
		Targets:     []scenarios.Target{shop},
		Cases: []scenarios.Case{{ID: "shop", Target: shop, Phases: []scenarios.Phase{
			{Name: "warmup", Warmup: true, Concurrency: 20}, {Name: "measured", Concurrency: 20},
		}}},
		Thresholds: []scenarios.Threshold{
			th(40, `requests_by_name["get"].p99 < 50ms`),
			th(41, "iteration.p99 < 20ms && iterations_rps >= 900"),
			th(42, "errors.extract == 0"),
		},
	}
}

// flowPhase is a phase of the flow at flowIterations a second.
func flowPhase(name string, warmup bool, start time.Time, secs int64) *results.PhaseResult {
	iterations := flowIterations * secs
	fails := flowExtractFails * secs
	p := &results.PhaseResult{
		Name: name, Warmup: warmup, Concurrency: 20,
		Start: start, End: start.Add(time.Duration(secs) * time.Second), Elapsed: time.Duration(secs) * time.Second,
		Latency: results.NewHistogram(), Connect: fixtureHist(20, 80*time.Microsecond),
	}
	for i, s := range flowSteps {
		n := &results.NamedResult{Name: s.name}
		n.Requests = iterations
		if i > 0 {
			n.Requests = iterations - fails // the failed list ended those iterations
		}
		n.Succeeded = n.Requests
		if i == 0 {
			n.Succeeded -= fails
			n.Failed = fails
			n.Errors.Extract += fails
		}
		n.BytesSent, n.BytesReceived = n.Requests*120, n.Requests*400
		n.Latency = fixtureHist(n.Succeeded, s.base)
		p.Latency.Merge(n.Latency)
		p.Counters.Merge(n.Counters)
		p.ByName = append(p.ByName, n)
	}
	p.FailedLatency = fixtureHist(fails, flowSteps[0].base)
	p.ErrorSamples = map[string]string{"extract": flowExtractSample}
	p.Iterations = &results.IterationResult{
		Iterations: iterations, Succeeded: iterations - fails, Failed: fails,
		Latency: fixtureHist(iterations-fails, 6*time.Millisecond),
	}
	for s := range secs {
		p.Series = append(p.Series, results.Second{
			At: int(s), Completed: p.Requests / secs, Errors: fails / secs,
			P50: 2 * time.Millisecond, P99: 9 * time.Millisecond, InFlight: 20,
		})
	}
	return p
}

// flowResult is the shop-api run, judged by the rules themselves.
func flowResult() (*results.ScenarioResult, []results.Verdict) {
	sc := flowScenarioFixture()
	start := t0.Add(150 * time.Second)
	res := &results.ScenarioResult{Scenario: sc, Start: start, End: start.Add(13 * time.Second)}
	res.Cases = append(res.Cases, &results.CaseResult{ID: "shop", Target: "shop", Phases: []*results.PhaseResult{
		flowPhase("warmup", true, start, 2),
		flowPhase("measured", false, start.Add(3*time.Second), flowMeasuredSecs),
	}})
	rules, err := assertions.Compile(sc)
	if err != nil {
		panic(err) // the fixture's rules are fixed: a failure is a bug here
	}
	return res, rules.Judge(res, assertions.JudgeOptions{})
}
