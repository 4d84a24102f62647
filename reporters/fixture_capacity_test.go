package reporters

import (
	"slices"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// The hello-capacity scenario searches two cases for their capacity under
// an SLO: "api" finds 4,875 rps after growing, bisecting and confirming;
// "edge" is stopped by its own generator at 19,200 rps, so all it can say
// is "≥ 9,600". The hello-abort scenario was stopped 3.2 s into its
// measured phase by an abort: true rule.
const (
	capacityFile = "testdata/capacity.yaml"
	capacitySLO  = "p99 < 50ms && error_rate < 0.1%"
	abortFile    = "testdata/abort.yaml"
)

// probe builds one probe of step seconds at rate, measured to reach
// achieved rps with latencies p50 and p99 and errors failures.
func probe(kind string, rate, achieved float64, p50, p99 time.Duration, failed int64, passed bool, reason string) results.Probe {
	const step = 5
	requests := int64(achieved)*step + failed
	return results.Probe{
		Kind: kind, Rate: rate, Achieved: achieved,
		Requests: requests, Failed: failed, ErrorRate: float64(failed) / float64(requests),
		P50: p50, P99: p99, Elapsed: step * time.Second, Passed: passed, Reason: reason,
	}
}

const ms1 = time.Millisecond

// apiProbes: doubling from 1,000 until 8,000 fails, bisection down to a
// bracket within 5 %, then two confirmations of 4,875.
var apiProbes = []results.Probe{
	probe("grow", 1000, 999.8, 2*ms1, 6*ms1, 0, true, ""),
	probe("grow", 2000, 1999.6, 2*ms1, 7*ms1, 0, true, ""),
	probe("grow", 4000, 3998.2, 3*ms1, 14*ms1, 0, true, ""),
	probe("grow", 8000, 6120.4, 90*ms1, 812*ms1, 410, false, "p99 = 812ms, error_rate = 1.3%"),
	probe("bisect", 6000, 5611.0, 31*ms1, 240*ms1, 12, false, "p99 = 240ms, error_rate = 0.04%"),
	probe("bisect", 5000, 4990.2, 12*ms1, 61*ms1, 0, false, "p99 = 61ms, error_rate = 0"),
	probe("bisect", 4500, 4499.0, 5*ms1, 24*ms1, 0, true, ""),
	probe("bisect", 4750, 4748.6, 7*ms1, 33*ms1, 0, true, ""),
	probe("bisect", 4875, 4873.0, 8*ms1, 41*ms1, 0, true, ""),
	probe("confirm", 4875, 4872.4, 8*ms1, 43*ms1, 0, true, ""),
	probe("confirm", 4875, 4874.1, 8*ms1, 39*ms1, 0, true, ""),
}

// edgeProbes: every rate met the SLO until the generator could not send
// 19,200 requests a second.
var edgeProbes = func() []results.Probe {
	ps := []results.Probe{
		probe("grow", 1200, 1199.9, ms1, 3*ms1, 0, true, ""),
		probe("grow", 2400, 2399.7, ms1, 3*ms1, 0, true, ""),
		probe("grow", 4800, 4799.1, ms1, 4*ms1, 0, true, ""),
		probe("grow", 9600, 9590.3, 2*ms1, 6*ms1, 0, true, ""),
		probe("grow", 19200, 12040.5, 2*ms1, 9*ms1, 0, false, "generator CPU 98%, send lag p99 41ms"),
	}
	ps[4].Saturated = true
	return ps
}()

func capacityScenario() *scenarios.Scenario {
	pos := func(line int) scenarios.Pos { return scenarios.Pos{File: capacityFile, Line: line, Col: 5} }
	search := func(from float64) *scenarios.Search {
		return &scenarios.Search{From: from, Max: 200000, Step: 5 * time.Second, ProbeWarmup: time.Second,
			Precision: 0.05, SLO: capacitySLO, SLOPos: pos(12), Confirm: 2}
	}
	api := scenarios.Target{Name: "api", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{{Weight: 1}}}}
	edge := scenarios.Target{Name: "edge", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{{Weight: 1}}}}
	return &scenarios.Scenario{
		File: capacityFile, Hash: "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00",
		Name: "hello-capacity", Description: "the highest rate at which p99 stays under 50 ms",
		Targets: []scenarios.Target{api, edge},
		Cases: []scenarios.Case{
			{ID: "api", Target: api, Phases: []scenarios.Phase{{Name: "capacity", Search: search(1000)}}},
			{ID: "edge", Target: edge, Phases: []scenarios.Phase{{Name: "capacity", Search: search(1200)}}},
		},
		Thresholds: []scenarios.Threshold{
			{Name: "capacity >= 4000", Rule: "capacity >= 4000", Severity: scenarios.SeverityFail, Pos: pos(15), RulePos: pos(15)},
		},
	}
}

// searchPhase is a search phase whose counters cover its probes.
func searchPhase(target string, start time.Time, probes []results.Probe, s *results.SearchResult) *results.PhaseResult {
	var rps int64
	for _, p := range probes {
		rps += int64(p.Achieved)
	}
	secs := int64(len(probes)) * 5
	p := fixturePhase(caseSpec{target: target, base: 3 * time.Millisecond}, "capacity", false, start, secs, rps/int64(len(probes)))
	p.Concurrency = 0
	s.Probes = slices.Clone(probes) // tests spoil their copy, never the fixture
	p.Search = s
	return p
}

func capacityResult() (*results.ScenarioResult, []results.Verdict) {
	sc := capacityScenario()
	start := t0.Add(5 * time.Minute)
	res := &results.ScenarioResult{Scenario: sc, Start: start, End: start.Add(2 * time.Minute)}
	res.Cases = []*results.CaseResult{
		{ID: "api", Target: "api", Phases: []*results.PhaseResult{searchPhase("api", start, apiProbes, &results.SearchResult{
			Capacity: 4875, Pass: 4875, Fail: 5000, Reason: "bracket 4875–5000 within 5%, confirmed twice",
		})}},
		{ID: "edge", Target: "edge", Phases: []*results.PhaseResult{searchPhase("edge", start.Add(time.Minute), edgeProbes, &results.SearchResult{
			Capacity: 9600, Pass: 9600, LimitedByGenerator: true, Reason: "the generator saturated at 19200 rps before the SLO broke",
		})}},
	}
	th := sc.Thresholds[0]
	verdict := func(id string, st results.Status, actual, reason string) results.Verdict {
		return results.Verdict{Case: id, Target: id, Name: th.Name, Rule: th.Rule, Severity: th.Severity, Pos: th.RulePos,
			Status: st, Actual: actual, Reason: reason}
	}
	return res, []results.Verdict{
		verdict("api", results.StatusPass, "capacity = 4875", ""),
		verdict("edge", results.StatusSkip, "", "capacity is not a number: the search was limited by the generator"),
	}
}

// abortedAt is when the abort rule stopped hello-abort's measured phase.
var abortAt = abortPoint{at: 3200 * time.Millisecond, window: 10 * time.Second}

type abortPoint struct{ at, window time.Duration }

func abortScenario() *scenarios.Scenario {
	pos := func(line int) scenarios.Pos { return scenarios.Pos{File: abortFile, Line: line, Col: 5} }
	return &scenarios.Scenario{
		File: abortFile, Hash: "abad1dea", Name: "hello-abort", Description: "a server that starts failing after 3 s",
		Thresholds: []scenarios.Threshold{
			{Name: "p99 < 50ms", Rule: "p99 < 50ms", Severity: scenarios.SeverityFail, Abort: true, Window: abortAt.window, Pos: pos(20), RulePos: pos(20)},
			{Name: "error_rate < 5%", Rule: "error_rate < 5%", Severity: scenarios.SeverityFail, Pos: pos(21), RulePos: pos(21)},
		},
	}
}

func abortResult() (*results.ScenarioResult, []results.Verdict) {
	sc := abortScenario()
	start := t0.Add(8 * time.Minute)
	p := fixturePhase(caseSpec{target: "checkout", concurrency: 20, base: 30 * time.Millisecond}, "measured", false, start, 4, 600)
	p.Elapsed = abortAt.at + 400*time.Millisecond
	p.Aborted = &results.Aborted{Case: "checkout", Phase: "measured", Name: "p99 < 50ms", Rule: "p99 < 50ms",
		At: abortAt.at, Window: abortAt.window, Actual: "p99 = 812ms"}
	res := &results.ScenarioResult{Scenario: sc, Start: start, End: start.Add(4 * time.Second),
		Cases: []*results.CaseResult{{ID: "checkout", Target: "checkout", Phases: []*results.PhaseResult{p}}}}
	v := func(th scenarios.Threshold, st results.Status, actual string) results.Verdict {
		return results.Verdict{Case: "checkout", Target: "checkout", Name: th.Name, Rule: th.Rule, Severity: th.Severity,
			Pos: th.RulePos, Status: st, Actual: actual}
	}
	return res, []results.Verdict{
		v(sc.Thresholds[0], results.StatusFail, "p99 = 150ms"),
		v(sc.Thresholds[1], results.StatusPass, "error_rate = 0"),
	}
}

// capacityRun is the run behind the capacity golden files.
func capacityRun() *results.Run {
	cap, capVerdicts := capacityResult()
	ab, abVerdicts := abortResult()
	return results.NewRun(fixtureMeta(), []results.ScenarioInput{
		{Result: cap, Verdicts: capVerdicts},
		{Result: ab, Verdicts: abVerdicts},
	})
}
