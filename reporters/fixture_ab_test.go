package reporters

import (
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// The ab scenario is a same-job A/B comparison (SPEC §6): two builds of a
// server, main and pr, each started by the scenario and monitored, five
// interleaved trials per case. pr names main as its baseline_target; at
// concurrency 10 its p99 is 20% worse and its memory 25% higher, at 100 it
// matches main.
const abFile = "testdata/ab.yaml"

// abSpec shapes one case of the ab scenario.
type abSpec struct {
	target      string
	concurrency int64
	base        time.Duration // latency scale of the first trial
	rps         []int64       // per trial
	cpu         float64       // server CPU mean, percent of one core
	rssMiB      int64
}

var abCases = []abSpec{
	{"main", 10, time.Millisecond, []int64{5000, 5050, 4980, 5020, 4990}, 52.5, 80},
	{"main", 100, 5 * time.Millisecond, []int64{9000, 9100, 8950, 9050, 8980}, 96, 110},
	{"pr", 10, 1200 * time.Microsecond, []int64{4950, 5010, 4970, 5000, 4960}, 57.75, 100},
	{"pr", 100, 5 * time.Millisecond, []int64{9020, 9080, 8990, 9040, 8960}, 97.5, 120},
}

func abScenarioFixture() *scenarios.Scenario {
	pos := func(line int) scenarios.Pos { return scenarios.Pos{File: abFile, Line: line, Col: 5} }
	th := func(line int, name, rule, target string, sev scenarios.Severity) scenarios.Threshold {
		return scenarios.Threshold{Name: name, Rule: rule, Severity: sev, Target: target, Pos: pos(line), RulePos: pos(line)}
	}
	main := scenarios.Target{Name: "main", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{{Weight: 1}}}}
	pr := scenarios.Target{Name: "pr", BaselineTarget: "main", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{{Weight: 1}}}}
	sc := &scenarios.Scenario{
		File:        abFile,
		Hash:        "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9",
		Name:        "ab",
		Description: "this pull request's server against main's, in one job, trials interleaved",
		Matrix:      []scenarios.Axis{{Key: "concurrency"}},
		Targets:     []scenarios.Target{main, pr},
		Thresholds: []scenarios.Threshold{
			th(30, "error_rate == 0", "error_rate == 0", "", scenarios.SeverityFail),
			th(31, "no throughput regression", `!regressed("rps", 5%)`, "pr", scenarios.SeverityFail),
			th(32, "no p99 regression", `!regressed("p99", 10%)`, "pr", scenarios.SeverityFail),
			th(33, "memory vs main", "server.rss_max < baseline.server.rss_max * 1.2", "pr", scenarios.SeverityWarn),
		},
	}
	for _, spec := range abCases {
		t := main
		if spec.target == "pr" {
			t = pr
		}
		sc.Cases = append(sc.Cases, scenarios.Case{ID: abCaseID(spec), Target: t, Matrix: abMatrix(spec)})
	}
	return sc
}

func abCaseID(spec abSpec) string {
	return spec.target + " concurrency=" + matrixText(spec.concurrency)
}

func abMatrix(spec abSpec) []scenarios.MatrixValue {
	return []scenarios.MatrixValue{{Key: "concurrency", Text: matrixText(spec.concurrency), Value: spec.concurrency}}
}

// abPhase is a measured phase of two-second trials, each trial recorded on
// its own and merged the way the runner merges trials. Trial i starts at
// slot 2i (main) or 2i+1 (pr) of the interleaved schedule.
func abPhase(spec abSpec, start time.Time) *results.PhaseResult {
	const secs = 2
	m := &results.PhaseResult{
		Name: "measured", Concurrency: int(spec.concurrency), Start: start,
		Latency: results.NewHistogram(), Connect: results.NewHistogram(),
	}
	slot := int64(0)
	if spec.target == "pr" {
		slot = 1
	}
	for i, r := range spec.rps {
		base := spec.base + time.Duration(i)*spec.base/100
		at := start.Add(time.Duration((2*int64(i)+slot)*secs) * time.Second)
		h := fixtureHist(r*secs, base)
		m.Requests += r * secs
		m.Succeeded += r * secs
		m.BytesReceived += r * secs * 150
		m.BytesSent += r * secs * 80
		m.Elapsed += secs * time.Second
		m.End = at.Add(secs * time.Second)
		m.Latency.Merge(h)
		m.Trials = append(m.Trials, results.Trial{
			Requests: r * secs, Elapsed: secs * time.Second, RPS: float64(r),
			P50: h.Quantile(50), P99: h.Quantile(99),
		})
	}
	for i := range spec.concurrency {
		m.Connect.Record(80*time.Microsecond + time.Duration(i%10)*5*time.Microsecond)
	}
	return m
}

// abResult is the ab run, judged by the real rules.
func abResult() (*results.ScenarioResult, []results.Verdict) {
	sc := abScenarioFixture()
	start := t0.Add(4 * time.Minute)
	res := &results.ScenarioResult{Scenario: sc, Start: start, End: start.Add(45 * time.Second)}
	for i, spec := range abCases {
		// Both targets of one concurrency share a 20 s window.
		caseStart := start.Add(time.Duration(i%2) * 20 * time.Second)
		pid := 100
		if spec.target == "pr" {
			pid = 200
		}
		res.Cases = append(res.Cases, &results.CaseResult{
			ID: abCaseID(spec), Target: spec.target, Matrix: abMatrix(spec),
			Phases:     []*results.PhaseResult{abPhase(spec, caseStart)},
			ServerName: spec.target,
			Server: &results.Usage{
				PID: pid, Samples: 10, CPUMean: spec.cpu, CPUMax: spec.cpu * 1.25,
				RSSMean: spec.rssMiB << 20 * 9 / 10, RSSMax: spec.rssMiB << 20,
				HostLoad1Max: 1.5 + float64(spec.concurrency)/100, HostCPUMean: 45,
			},
		})
	}
	rules, err := assertions.Compile(sc)
	if err != nil {
		panic(err) // the fixture's own rules: a test bug, not a test failure
	}
	return res, rules.Judge(res, assertions.JudgeOptions{})
}

// abRun is the results document of the ab run alone.
func abRun() *results.Run {
	res, verdicts := abResult()
	return results.NewRun(fixtureMeta(), []results.ScenarioInput{{Result: res, Verdicts: verdicts}})
}
