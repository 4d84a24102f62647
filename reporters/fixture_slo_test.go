package reporters

import (
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// The hello-slo scenario shows what the closed-model sweep cannot: an
// open-model case that could not send its whole rate, and a case repeated in
// trials whose rps is a median with a spread.
const (
	sloFile        = "testdata/slo.yaml"
	sloRate        = 2000 // requested arrivals per second
	sloDropped     = 111  // arrivals the paced case never sent
	sloMaxInFlight = 200
)

// sloTrialRPS are the repeated case's three trials: the median, 4920, is
// neither the first trial nor the pooled mean.
var sloTrialRPS = []int64{4920, 5100, 4850}

func sloScenario() *scenarios.Scenario {
	paced := scenarios.Target{Name: "paced", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{{Weight: 1}}}}
	repeated := scenarios.Target{Name: "repeated", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{{Weight: 1}}}}
	pos := func(line int) scenarios.Pos { return scenarios.Pos{File: sloFile, Line: line, Col: 5} }
	th := func(line int, rule, target string) scenarios.Threshold {
		return scenarios.Threshold{Name: rule, Rule: rule, Severity: scenarios.SeverityFail, Target: target, Pos: pos(line), RulePos: pos(line)}
	}
	return &scenarios.Scenario{
		File:        sloFile,
		Hash:        "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
		Name:        "hello-slo",
		Description: "hello server at a fixed arrival rate, and its throughput over repeated trials",
		Targets:     []scenarios.Target{paced, repeated},
		Cases: []scenarios.Case{
			{ID: "paced", Target: paced, Phases: []scenarios.Phase{
				{Name: "warmup", Warmup: true, Rate: scenarios.Rate{From: 500, To: 500}, MaxInFlight: sloMaxInFlight},
				{Name: "measured", Rate: scenarios.Rate{From: sloRate, To: sloRate}, MaxInFlight: sloMaxInFlight},
			}},
			{ID: "repeated", Target: repeated, Phases: []scenarios.Phase{
				{Name: "warmup", Warmup: true, Concurrency: 50},
				{Name: "measured", Concurrency: 50, Trials: len(sloTrialRPS)},
			}},
		},
		Thresholds: []scenarios.Threshold{
			th(20, "p99 < 50ms", ""),
			th(21, "dropped == 0", ""),
			th(22, "send_lag.p99 < 5ms", "paced"),
			th(23, "rps_cv < 5% && trials == 3", "repeated"),
		},
	}
}

// openPhase is an open-model phase at rate whose generator fell behind:
// most requests left on time, a backlog queued behind max_in_flight once
// a second, and dropped arrivals were never sent.
func openPhase(name string, warmup bool, start time.Time, secs int64, rate float64, dropped int64) *results.PhaseResult {
	spec := caseSpec{target: "paced", concurrency: 0, base: 2 * time.Millisecond}
	requests := int64(rate)*secs - dropped
	p := fixturePhase(spec, name, warmup, start, secs, int64(rate))
	p.Concurrency = 0
	p.Rate = &scenarios.Rate{From: rate, To: rate}
	p.Dropped = dropped
	p.Requests, p.Succeeded = requests, requests
	p.StatusCodes = map[string]int64{"200": requests}
	p.BytesReceived, p.BytesSent = requests*150, requests*80
	// Connections open as arrivals need them, up to the cap.
	p.Connect = results.NewHistogram()
	for i := range 12 {
		p.Connect.Record(80*time.Microsecond + time.Duration(i%10)*5*time.Microsecond)
	}
	// Latency runs from the schedule, so a request that left late is that
	// much slower: the lag is part of its latency.
	p.Latency, p.SendLag = results.NewHistogram(), results.NewHistogram()
	for i := range requests {
		lag := 40*time.Microsecond + time.Duration(i%20)*time.Microsecond
		if dropped > 0 && i%50 == 49 {
			// The backlog behind the cap: 2% of requests left 4–20 ms late.
			lag = time.Duration(4+(i/50)%17) * time.Millisecond
		}
		p.SendLag.Record(lag)
		p.Latency.Record(fixtureLatency(i, spec.base) + lag)
	}
	for i := range p.Series {
		p.Series[i].Completed = requests / secs
		p.Series[i].InFlight = 4
		if i%5 == 4 {
			p.Series[i].InFlight = sloMaxInFlight
		}
	}
	return p
}

// trialsPhase is a closed-model phase run once per entry of rps, merged
// the way the runner merges trials.
func trialsPhase(start time.Time, secs int64, rps []int64) *results.PhaseResult {
	spec := caseSpec{target: "repeated", concurrency: 50, base: 8 * time.Millisecond}
	m := &results.PhaseResult{
		Name: "measured", Concurrency: int(spec.concurrency), Start: start,
		Latency: results.NewHistogram(), Connect: results.NewHistogram(),
	}
	at := start
	for i, r := range rps {
		spec.base = 8*time.Millisecond + time.Duration(i)*200*time.Microsecond
		t := fixturePhase(spec, "measured", false, at, secs, r)
		m.End = t.End
		m.Elapsed += t.Elapsed
		m.Counters.Merge(t.Counters)
		m.Latency.Merge(t.Latency)
		m.Connect.Merge(t.Connect)
		for _, s := range t.Series {
			s.At += int(int64(i) * secs)
			m.Series = append(m.Series, s)
		}
		m.Trials = append(m.Trials, results.Trial{
			Requests: t.Requests, Failed: t.Failed, Elapsed: t.Elapsed,
			RPS: float64(t.Requests) / t.Elapsed.Seconds(),
			P50: t.Latency.Quantile(50), P99: t.Latency.Quantile(99),
		})
		at = t.End
	}
	return m
}

// sloResult is the hello-slo run, judged by the real rules: every name its
// thresholds use is available to rules.
func sloResult() (*results.ScenarioResult, []results.Verdict) {
	sc := sloScenario()
	start := t0.Add(2 * time.Minute)
	res := &results.ScenarioResult{Scenario: sc, Start: start, End: start.Add(55 * time.Second)}
	// The server runs elsewhere: only this host's load was sampled.
	res.Cases = []*results.CaseResult{
		{ID: "paced", Target: "paced", Phases: []*results.PhaseResult{
			openPhase("warmup", true, start, 2, 500, 0),
			openPhase("measured", false, start.Add(3*time.Second), 15, sloRate, sloDropped),
		}, Server: &results.Usage{Samples: 15, HostLoad1Max: 0.72, HostCPUMean: 31.5}},
		{ID: "repeated", Target: "repeated", Phases: []*results.PhaseResult{
			fixturePhase(caseSpec{target: "repeated", concurrency: 50, base: 8 * time.Millisecond}, "warmup", true, start.Add(20*time.Second), 2, 2500),
			trialsPhase(start.Add(23*time.Second), 10, sloTrialRPS),
		}, Server: &results.Usage{Samples: 30, HostLoad1Max: 2.41, HostCPUMean: 64.25}},
	}
	rules, err := assertions.Compile(sc)
	if err != nil {
		panic(err) // the fixture's own rules: a test bug, not a test failure
	}
	return res, rules.Judge(res, assertions.JudgeOptions{})
}
