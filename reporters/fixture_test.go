package reporters

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, line by line so that a mismatch
// reads as a diff. With -update it rewrites the file instead.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./reporters/ -update` to create it)", err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s\nrun `go test ./reporters/ -update` if the change is intended", path, diff)
	}
}

// t0 is the fixed start of the synthetic run.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

const fixtureFile = "testdata/hello.yaml"

// caseSpec shapes one synthetic case: its throughput, latency scale and
// failures are chosen so that every report feature has something to show.
type caseSpec struct {
	target      string
	concurrency int64
	rps         int64 // measured requests per second
	base        time.Duration
	errs        results.ErrorCounts
	rssMiB      int
}

var fixtureCases = []caseSpec{
	{"keepalive", 1, 1000, 500 * time.Microsecond, results.ErrorCounts{}, 90},
	{"keepalive", 10, 8000, time.Millisecond, results.ErrorCounts{}, 120},
	// Throughput barely grows past 10 clients: the knee.
	{"keepalive", 100, 8500, 10 * time.Millisecond, results.ErrorCounts{Status: 5}, 200},
	{"close", 1, 800, 700 * time.Microsecond, results.ErrorCounts{}, 80},
	{"close", 10, 5000, 2 * time.Millisecond, results.ErrorCounts{}, 150},
	{"close", 100, 9000, 12 * time.Millisecond, results.ErrorCounts{Connect: 12, Timeout: 3, Reset: 30}, 600},
}

// fixtureErrorSamples are first messages as the clients word them.
var fixtureErrorSamples = map[string]string{
	"connect": "dial tcp 127.0.0.1:8081: connect: connection refused",
	"timeout": "read tcp 127.0.0.1:40112->127.0.0.1:8081: i/o timeout",
	"reset":   "read tcp 127.0.0.1:40114->127.0.0.1:8081: read: connection reset by peer",
	"status":  "unexpected status 503",
}

// fixtureHist records n latencies deterministically: a spread around base
// and one slow request in a hundred.
func fixtureHist(n int64, base time.Duration) *results.Histogram {
	h := results.NewHistogram()
	for i := range n {
		h.Record(fixtureLatency(i, base))
	}
	return h
}

// fixtureLatency is the latency of the i-th request of fixtureHist.
func fixtureLatency(i int64, base time.Duration) time.Duration {
	if i%100 == 99 {
		return 5 * base
	}
	return base + time.Duration(i%50)*base/50
}

func fixturePhase(spec caseSpec, name string, warmup bool, start time.Time, secs, rps int64) *results.PhaseResult {
	requests := rps * secs
	p := &results.PhaseResult{
		Name:        name,
		Warmup:      warmup,
		Concurrency: int(spec.concurrency),
		Start:       start,
		End:         start.Add(time.Duration(secs) * time.Second),
		Elapsed:     time.Duration(secs) * time.Second,
		Latency:     fixtureHist(requests, spec.base),
		Connect:     results.NewHistogram(),
	}
	p.Requests = requests
	if !warmup {
		p.Errors = spec.errs
	}
	p.Failed = p.Errors.Total()
	p.Succeeded = requests - p.Failed
	if p.Failed > 0 {
		p.FailedLatency = fixtureHist(p.Failed, 3*spec.base)
		p.ErrorSamples = map[string]string{}
		p.Errors.Each(func(kind string, n int64) {
			if n > 0 {
				p.ErrorSamples[kind] = fixtureErrorSamples[kind]
			}
		})
	}
	// Every request that got a response has a status: 503 for the
	// status errors, 200 for the rest.
	if responded := requests - p.Errors.Connect - p.Errors.Timeout - p.Errors.Reset; responded > 0 {
		p.StatusCodes = map[string]int64{"200": responded - p.Errors.Status}
		if p.Errors.Status > 0 {
			p.StatusCodes["503"] = p.Errors.Status
		}
	}
	p.BytesReceived = requests * 150
	p.BytesSent = requests * 80
	conns := spec.concurrency
	if spec.target == "close" {
		conns = requests
	}
	for i := range conns {
		p.Connect.Record(80*time.Microsecond + time.Duration(i%10)*5*time.Microsecond)
	}
	for s := range secs {
		wiggle := (s%3 - 1) * rps / 50
		p.Series = append(p.Series, results.Second{
			At:        int(s),
			Completed: rps + wiggle,
			Errors:    p.Failed / secs,
			P50:       spec.base + spec.base/2,
			P99:       5*spec.base + time.Duration(s%4)*spec.base/4,
			InFlight:  spec.concurrency,
		})
	}
	return p
}

// fixtureServer is what the monitor saw of the server while p ran: CPU
// that grows with throughput (a core per 10,000 rps), memory that settles
// at spec.rssMiB, a host load that grows with the clients, one sample a
// second.
func fixtureServer(spec caseSpec, p *results.PhaseResult) *results.Usage {
	u := &results.Usage{PID: 4242, HostCPUMean: 20 + float64(spec.rps)/200}
	secs := int64(p.Elapsed / time.Second)
	var cpuSum float64
	var rssSum int64
	for s := range secs {
		pt := results.UsagePoint{
			At:    p.Start.Add(time.Duration(s+1) * time.Second),
			CPU:   float64(spec.rps)/100 + float64(s%5-2)*float64(spec.rps)/1000,
			RSS:   int64(spec.rssMiB) << 20 * (secs + s + 1) / (2 * secs),
			Load1: 0.5 + float64(spec.concurrency)/50 + float64(s)/100,
			Procs: 1,
		}
		u.Series = append(u.Series, pt)
		u.Samples++
		cpuSum += pt.CPU
		rssSum += pt.RSS
		u.CPUMax, u.RSSMax, u.HostLoad1Max = max(u.CPUMax, pt.CPU), max(u.RSSMax, pt.RSS), max(u.HostLoad1Max, pt.Load1)
	}
	u.CPUMean, u.RSSMean = cpuSum/float64(u.Samples), rssSum/int64(u.Samples)
	u.Window = float64(secs)
	u.SetCPUPerRequest(p.Succeeded)
	return u
}

func fixtureThresholds() []scenarios.Threshold {
	pos := func(line int) scenarios.Pos { return scenarios.Pos{File: fixtureFile, Line: line, Col: 5} }
	return []scenarios.Threshold{
		{Name: "rps >= 5000", Rule: "rps >= 5000", Severity: scenarios.SeverityFail, RulePos: pos(31)},
		{Name: "p99 < 50ms", Rule: "p99 < 50ms", Severity: scenarios.SeverityFail, RulePos: pos(32)},
		{Name: "memory", Rule: "server.rss_max < 512MiB", Severity: scenarios.SeverityWarn, RulePos: pos(33)},
		{Name: "no regression", Rule: `!regressed("rps", 5%)`, Severity: scenarios.SeverityFail, RulePos: pos(34)},
		{Name: "login p99", Rule: `requests_by_name["login"].p99 < 100ms`, Severity: scenarios.SeverityFail, Target: "close", RulePos: pos(35)},
	}
}

// fixtureResult is the synthetic scenario: 2 targets × concurrency
// [1, 10, 100], each case a warm-up then a measured phase.
func fixtureResult() (*results.ScenarioResult, []results.Verdict) {
	sc := &scenarios.Scenario{
		File:        fixtureFile,
		Hash:        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Name:        "hello-http",
		Description: "hello server, keep-alive vs short connections",
		Matrix: []scenarios.Axis{{Key: "concurrency", Values: []scenarios.MatrixValue{
			{Key: "concurrency", Text: "1", Value: int64(1)},
			{Key: "concurrency", Text: "10", Value: int64(10)},
			{Key: "concurrency", Text: "100", Value: int64(100)},
		}}},
		Thresholds: fixtureThresholds(),
	}
	res := &results.ScenarioResult{Scenario: sc, Start: t0, End: t0.Add(2 * time.Minute)}
	var verdicts []results.Verdict
	for i, spec := range fixtureCases {
		start := t0.Add(time.Duration(i) * 20 * time.Second)
		cr := &results.CaseResult{
			ID:     fmt.Sprintf("%s concurrency=%d", spec.target, spec.concurrency),
			Target: spec.target,
			Matrix: []scenarios.MatrixValue{{Key: "concurrency", Text: fmt.Sprint(spec.concurrency), Value: spec.concurrency}},
			Phases: []*results.PhaseResult{
				fixturePhase(spec, "warmup", true, start, 2, spec.rps/2),
				fixturePhase(spec, "measured", false, start.Add(3*time.Second), 15, spec.rps),
			},
		}
		cr.Server, cr.ServerName = fixtureServer(spec, cr.Phases[1]), "server"
		res.Cases = append(res.Cases, cr)
		verdicts = append(verdicts, fixtureVerdicts(sc, cr, spec)...)
	}
	return res, verdicts
}

// fixtureVerdicts judges the case the way the rules would, from its figures.
func fixtureVerdicts(sc *scenarios.Scenario, cr *results.CaseResult, spec caseSpec) []results.Verdict {
	st := results.Summarize(cr.Measured(""))
	var out []results.Verdict
	for _, th := range sc.Thresholds {
		if th.Target != "" && th.Target != cr.Target {
			continue
		}
		v := results.Verdict{
			Case: cr.ID, Target: cr.Target, Name: th.Name, Rule: th.Rule,
			Severity: th.Severity, Pos: th.RulePos, Status: results.StatusPass,
		}
		fail := false
		switch th.Name {
		case "rps >= 5000":
			v.Actual = fmt.Sprintf("rps = %.1f", st.RPS)
			fail = st.RPS < 5000
		case "p99 < 50ms":
			v.Actual = "p99 = " + st.Latency.P99.String()
			fail = st.Latency.P99 >= 50*time.Millisecond
		case "memory":
			v.Actual = fmt.Sprintf("server.rss_max = %dMiB", spec.rssMiB)
			fail = spec.rssMiB >= 512
		case "no regression":
			v.Status, v.Reason = results.StatusSkip, "no baseline loaded"
		case "login p99":
			v.Status, v.Reason = results.StatusError, `map has no key "login"`
		}
		if fail {
			v.Status = results.StatusFail
		}
		out = append(out, v)
	}
	return out
}

func fixtureMeta() results.Meta {
	return results.Meta{
		Version: "1.2.3",
		Commit:  "0123456789abcdef0123456789abcdef01234567",
		Host: results.Host{
			Hostname: "ci-runner-1", OS: "linux", Arch: "amd64",
			CPUModel: "AMD EPYC 7763 64-Core Processor", Cores: 4, Runner: "RUNNER_OS=Linux",
		},
		Start: t0,
		End:   t0.Add(3 * time.Minute),
	}
}

// fixtureRun is the synthetic run behind every golden file: the hello-http
// sweep, the hello-slo scenario (open model and trials), a third scenario
// whose server never became ready and the shop-api flow.
func fixtureRun() *results.Run {
	res, verdicts := fixtureResult()
	slo, sloVerdicts := sloResult()
	flow, flowVerdicts := flowResult()
	broken := &scenarios.Scenario{File: "testdata/agent.yaml", Name: "tcp-agent", Hash: "aa55"}
	return results.NewRun(fixtureMeta(), []results.ScenarioInput{
		{Result: res, Verdicts: verdicts},
		{Result: slo, Verdicts: sloVerdicts},
		{Scenario: broken, Err: errors.New("server did not become ready within 30s: connect 127.0.0.1:13888: connection refused")},
		{Result: flow, Verdicts: flowVerdicts},
	})
}
