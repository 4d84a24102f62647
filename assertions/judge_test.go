package assertions

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// load describes the samples of a synthetic phase.
type load struct {
	latency time.Duration // every request's latency
	n       int64         // requests completed
	failed  int64         // of which failed (counted as status errors)
	// slow adds n2 more requests of latency2, to shape the tail.
	latency2 time.Duration
	n2       int64
}

// phase builds a PhaseResult as the runner would report it.
func phase(name string, warmup bool, elapsed time.Duration, l load) *results.PhaseResult {
	p := &results.PhaseResult{
		Name: name, Warmup: warmup, Elapsed: elapsed,
		Latency: results.NewHistogram(), Connect: results.NewHistogram(),
	}
	p.Requests = l.n + l.n2
	p.Failed = l.failed
	p.Succeeded = p.Requests - l.failed
	p.Errors.Status += l.failed
	p.BytesReceived = 100 * p.Requests
	for range l.n {
		p.Latency.Record(l.latency)
	}
	for range l.n2 {
		p.Latency.Record(l.latency2)
	}
	p.Connect.Record(time.Millisecond)
	return p
}

// named adds a request of a weighted mix to p.
func named(p *results.PhaseResult, name string, latency time.Duration, n int64) *results.PhaseResult {
	nr := &results.NamedResult{Name: name, Latency: results.NewHistogram()}
	nr.Requests, nr.Succeeded = n, n
	for range n {
		nr.Latency.Record(latency)
	}
	p.ByName = append(p.ByName, nr)
	return p
}

func caseOf(target string, concurrency int64, phases ...*results.PhaseResult) *results.CaseResult {
	return &results.CaseResult{
		ID:     fmt.Sprintf("%s concurrency=%d", target, concurrency),
		Target: target,
		Matrix: []scenarios.MatrixValue{{Key: "concurrency", Value: concurrency}},
		Phases: phases,
	}
}

func mustCompile(t testing.TB, ths ...scenarios.Threshold) *Rules {
	t.Helper()
	rules, err := Compile(testScenario(ths...))
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// brief is the part of a verdict these tests judge.
type brief struct {
	Case, Phase, Rule string
	Status            results.Status
	Actual, Reason    string
}

// judgeOne checks, as a subtest, that rule alone judges res with status,
// having seen actual.
func judgeOne(t *testing.T, res *results.ScenarioResult, rule string, status results.Status, actual string) {
	t.Helper()
	t.Run(rule, func(t *testing.T) {
		got := briefs(mustCompile(t, at(2, 5, rule)).Judge(res, JudgeOptions{}))
		if len(got) != 1 || got[0].Status != status || got[0].Actual != actual {
			t.Errorf("verdicts = %+v, want status %v, actual %q", got, status, actual)
		}
	})
}

func briefs(vs []results.Verdict) []brief {
	out := make([]brief, len(vs))
	for i, v := range vs {
		out[i] = brief{Case: v.Case, Phase: v.Phase, Rule: v.Rule, Status: v.Status, Actual: v.Actual, Reason: v.Reason}
	}
	return out
}

func TestJudgePassFailWarnSkip(t *testing.T) {
	warn := at(4, 5, "p99 < 10ms")
	warn.Severity = scenarios.SeverityWarn
	warn.Name = "fast enough"
	rules := mustCompile(t,
		at(2, 5, "rps >= 1000"),
		at(3, 5, "p99 < 50ms"),
		warn,
		at(5, 5, `!regressed("rps", 5%)`),
		at(6, 5, "error_rate < 1%"),
	)
	// 2469 requests in 2 s, 30 of them failed: 1219.5 rps (successes only); 1% at 63.2 ms.
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10, phase("steady", false, 2*time.Second,
			load{latency: time.Millisecond, n: 2400, latency2: 63200 * time.Microsecond, n2: 69, failed: 30})),
	}}
	got := rules.Judge(res, JudgeOptions{})
	want := []results.Verdict{
		{Case: "web concurrency=10", Target: "web", Name: "rps >= 1000", Rule: "rps >= 1000", Severity: scenarios.SeverityFail,
			Status: results.StatusPass, Actual: "rps = 1219.5", Pos: scenarios.Pos{File: "load.yaml", Line: 2, Col: 5}},
		{Case: "web concurrency=10", Target: "web", Name: "p99 < 50ms", Rule: "p99 < 50ms", Severity: scenarios.SeverityFail,
			Status: results.StatusFail, Actual: "p99 = 63.2ms", Pos: scenarios.Pos{File: "load.yaml", Line: 3, Col: 5}},
		{Case: "web concurrency=10", Target: "web", Name: "fast enough", Rule: "p99 < 10ms", Severity: scenarios.SeverityWarn,
			Status: results.StatusFail, Actual: "p99 = 63.2ms", Pos: scenarios.Pos{File: "load.yaml", Line: 4, Col: 5}},
		{Case: "web concurrency=10", Target: "web", Name: `!regressed("rps", 5%)`, Rule: `!regressed("rps", 5%)`, Severity: scenarios.SeverityFail,
			Status: results.StatusSkip, Reason: ReasonNoBaseline, Pos: scenarios.Pos{File: "load.yaml", Line: 5, Col: 5}},
		{Case: "web concurrency=10", Target: "web", Name: "error_rate < 1%", Rule: "error_rate < 1%", Severity: scenarios.SeverityFail,
			Status: results.StatusFail, Actual: "error_rate = 0.0122", Pos: scenarios.Pos{File: "load.yaml", Line: 6, Col: 5}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	fails := []bool{false, true, false, false, true}
	for i, v := range got {
		if v.Fails() != fails[i] {
			t.Errorf("%s: Fails() = %v, want %v", v.Name, v.Fails(), fails[i])
		}
	}
}

func TestJudgeWarmupExcluded(t *testing.T) {
	rules := mustCompile(t, at(2, 5, "p99 < 5ms && max < 5ms"), at(3, 5, "requests == 1000 && duration == 10s"))
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10,
			// A cold start: ten requests of ten seconds each.
			phase("warmup", true, 100*time.Second, load{latency: 10 * time.Second, n: 10}),
			phase("steady", false, 10*time.Second, load{latency: time.Millisecond, n: 1000}),
		),
	}}
	want := []brief{
		{Case: "web concurrency=10", Rule: "p99 < 5ms && max < 5ms", Status: results.StatusPass, Actual: "p99 = 1ms, max = 1ms"},
		{Case: "web concurrency=10", Rule: "requests == 1000 && duration == 10s", Status: results.StatusPass, Actual: "requests = 1000, duration = 10s"},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeNarrowing(t *testing.T) {
	steady := at(3, 5, `p99 < 5ms && phase == "steady"`)
	steady.Phase = "steady"
	webOnly := at(4, 5, "rps > 0")
	webOnly.Target = "web"
	rules := mustCompile(t, at(2, 5, `p99 < 5ms && phase == "measured"`), steady, webOnly)
	phases := func() []*results.PhaseResult {
		return []*results.PhaseResult{
			phase("steady", false, time.Second, load{latency: time.Millisecond, n: 1000}),
			phase("spike", false, time.Second, load{latency: 100 * time.Millisecond, n: 1000}),
		}
	}
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("api", 10, phases()...),
		caseOf("web", 10, phases()...),
	}}
	want := []brief{
		// All measured phases together: the spike's latency counts.
		{Case: "api concurrency=10", Rule: `p99 < 5ms && phase == "measured"`, Status: results.StatusFail, Actual: "p99 = 100ms, phase = \"measured\""},
		// Narrowed to the steady phase: only its latency counts.
		{Case: "api concurrency=10", Phase: "steady", Rule: `p99 < 5ms && phase == "steady"`, Status: results.StatusPass, Actual: "p99 = 1ms, phase = \"steady\""},
		// The web-only threshold is not judged on api.
		{Case: "web concurrency=10", Rule: `p99 < 5ms && phase == "measured"`, Status: results.StatusFail, Actual: "p99 = 100ms, phase = \"measured\""},
		{Case: "web concurrency=10", Phase: "steady", Rule: `p99 < 5ms && phase == "steady"`, Status: results.StatusPass, Actual: "p99 = 1ms, phase = \"steady\""},
		{Case: "web concurrency=10", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 1000"},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeRequestsByName(t *testing.T) {
	rules := mustCompile(t,
		at(2, 5, `requests_by_name["login"].p99 < 200ms`),
		at(3, 5, `requests_by_name.browse.p99 < 200ms && requests_by_name["browse"].requests > 0`),
	)
	p := phase("steady", false, time.Second, load{latency: time.Millisecond, n: 400})
	named(p, "login", 150*time.Millisecond, 100)
	named(p, "browse", 300*time.Millisecond, 300)
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("api", 10, p),
		// A target without the mix: judging its zeros would pass in silence.
		caseOf("web", 10, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 10})),
	}}
	want := []brief{
		{Case: "api concurrency=10", Rule: `requests_by_name["login"].p99 < 200ms`, Status: results.StatusPass,
			Actual: `requests_by_name["login"].p99 = 150ms`},
		{Case: "api concurrency=10", Rule: `requests_by_name.browse.p99 < 200ms && requests_by_name["browse"].requests > 0`, Status: results.StatusFail,
			Actual: `requests_by_name["browse"].p99 = 300ms, requests_by_name["browse"].requests = 300`},
		{Case: "web concurrency=10", Rule: `requests_by_name["login"].p99 < 200ms`, Status: results.StatusSkip,
			Reason: `target "web" has no request named "login"`},
		{Case: "web concurrency=10", Rule: `requests_by_name.browse.p99 < 200ms && requests_by_name["browse"].requests > 0`, Status: results.StatusSkip,
			Reason: `target "web" has no request named "browse"`},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgePercentileFunction(t *testing.T) {
	rules := mustCompile(t,
		at(2, 5, "p999 < 10ms"),
		at(3, 5, "p(99.99) < 10ms"),
		at(4, 5, "p(99) == p99"),
		at(5, 5, "p(200) < 1s"),
		at(6, 5, "p(0) < 1s"),
	)
	// 10000 samples, the two slowest at 2 s: p99.9 misses them, p99.99 does not.
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10, phase("steady", false, 10*time.Second,
			load{latency: time.Millisecond, n: 9998, latency2: 2 * time.Second, n2: 2})),
	}}
	want := []brief{
		{Case: "web concurrency=10", Rule: "p999 < 10ms", Status: results.StatusPass, Actual: "p999 = 1ms"},
		{Case: "web concurrency=10", Rule: "p(99.99) < 10ms", Status: results.StatusFail, Actual: "p(99.99) = 2s"},
		{Case: "web concurrency=10", Rule: "p(99) == p99", Status: results.StatusPass, Actual: "p(99) = 1ms, p99 = 1ms"},
		// Out-of-range percentiles are run-time errors, with a reason.
		{Case: "web concurrency=10", Rule: "p(200) < 1s", Status: results.StatusError,
			Reason: "p(200): the percentile must be above 0 and at most 100"},
		{Case: "web concurrency=10", Rule: "p(0) < 1s", Status: results.StatusError,
			Reason: "p(0): the percentile must be above 0 and at most 100"},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeMatrix(t *testing.T) {
	rules := mustCompile(t, at(2, 5, "matrix.concurrency < 100 || p99 < 1ms"), at(3, 5, "matrix.concurrency >= 10"))
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10, phase("steady", false, time.Second, load{latency: 5 * time.Millisecond, n: 100})),
		caseOf("web", 1000, phase("steady", false, time.Second, load{latency: 5 * time.Millisecond, n: 100})),
	}}
	want := []brief{
		{Case: "web concurrency=10", Rule: "matrix.concurrency < 100 || p99 < 1ms", Status: results.StatusPass, Actual: "matrix.concurrency = 10, p99 = 5ms"},
		{Case: "web concurrency=10", Rule: "matrix.concurrency >= 10", Status: results.StatusPass, Actual: "matrix.concurrency = 10"},
		{Case: "web concurrency=1000", Rule: "matrix.concurrency < 100 || p99 < 1ms", Status: results.StatusFail, Actual: "matrix.concurrency = 1000, p99 = 5ms"},
		{Case: "web concurrency=1000", Rule: "matrix.concurrency >= 10", Status: results.StatusPass, Actual: "matrix.concurrency = 1000"},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeNothingMeasured(t *testing.T) {
	rules := mustCompile(t, at(2, 5, "rps > 0 && p99 < 1s"))
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		// Measured, but nothing completed: judged, and rps fails honestly.
		caseOf("web", 1, phase("steady", false, 10*time.Second, load{})),
		// Only a warm-up phase ran.
		caseOf("web", 2, phase("warmup", true, time.Second, load{latency: time.Millisecond, n: 10})),
		// The case could not be carried out at all.
		{ID: "web concurrency=3", Target: "web", Err: "server did not start"},
	}}
	want := []brief{
		{Case: "web concurrency=1", Rule: "rps > 0 && p99 < 1s", Status: results.StatusFail, Actual: "rps = 0, p99 = 0s"},
		{Case: "web concurrency=2", Rule: "rps > 0 && p99 < 1s", Status: results.StatusSkip, Reason: ReasonNoPhase},
		{Case: "web concurrency=3", Rule: "rps > 0 && p99 < 1s", Status: results.StatusError, Reason: "case was not carried out: server did not start"},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeActualFormatting(t *testing.T) {
	rules := mustCompile(t, at(2, 5,
		`p99 < 50ms && rps >= 1000 && error_rate < 1% && errors.status == 0 && bytes_received > 1KiB && target == "web" && connect.max < 1s`))
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10, phase("steady", false, 2*time.Second,
			load{latency: 850 * time.Microsecond, n: 2400, latency2: 1250 * time.Millisecond, n2: 69, failed: 30})),
	}}
	got := rules.Judge(res, JudgeOptions{})
	const want = `p99 = 1.25s, rps = 1219.5, error_rate = 0.0122, errors.status = 30, bytes_received = 246900, target = "web", connect.max = 1ms`
	if len(got) != 1 || got[0].Actual != want {
		t.Errorf("Actual = %q\nwant     %q", got[0].Actual, want)
	}
}

func TestJudgeNil(t *testing.T) {
	var rules *Rules
	if got := rules.Judge(&results.ScenarioResult{}, JudgeOptions{}); got != nil {
		t.Errorf("nil rules judged %v", got)
	}
	if got := mustCompile(t, at(2, 5, "rps > 0")).Judge(nil, JudgeOptions{}); got != nil {
		t.Errorf("nil result judged %v", got)
	}
}

func TestJudgeConcurrent(t *testing.T) {
	rules := mustCompile(t, at(2, 5, "p99 < 50ms && p(99.9) < 1s"))
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 100})),
	}}
	want := rules.Judge(res, JudgeOptions{})
	done := make(chan []results.Verdict)
	for range 4 {
		go func() { done <- rules.Judge(res, JudgeOptions{}) }()
	}
	for range 4 {
		if diff := cmp.Diff(want, <-done, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("concurrent Judge differs:\n%s", diff)
		}
	}
}

func BenchmarkJudge(b *testing.B) {
	rules := mustCompile(b,
		at(2, 5, "rps >= 1000"),
		at(3, 5, "p99 < 50ms"),
		at(4, 5, "error_rate < 0.1%"),
		at(5, 5, "p(99.99) < 1s"),
		at(6, 5, "matrix.concurrency < 100 || p99 < 1s"),
	)
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10, phase("steady", false, 10*time.Second,
			load{latency: time.Millisecond, n: 10000, latency2: 60 * time.Millisecond, n2: 100})),
	}}
	b.ReportAllocs()
	for b.Loop() {
		rules.Judge(res, JudgeOptions{})
	}
}

func TestJudgeExpressions(t *testing.T) {
	// What docs/rules.md promises about types and expr itself.
	rules := []string{
		"p99 - p50 < 10ms",                   // duration arithmetic
		"p99 < 3 * p50",                      // scaling a duration
		"p99 < 1.5 * p50 && p99 * 0.5 < p50", // by a fraction too
		"p99 / 2 < p50 && p99 / 0.5 > p50",   // dividing keeps a duration
		"p99 / p50 < 110%",                   // a duration by a duration is a ratio
		"duration.Seconds() >= 1",            // converting to a number
		"p99.Milliseconds() < 50",            // idem, for a latency
		"requests >= 1e2",                    // ints compare with floats
		"bytes_received > 1KiB",              // sizes are byte counts
		"abs(rps - 100) < 1",                 // expr builtins
		"let slow = p99 > 1s; !slow",         // let bindings
		`target in ["web", "api"]`,           // membership
		"errors.status == 0 and failed == 0", // word operators
	}
	var ths []scenarios.Threshold
	for i, r := range rules {
		ths = append(ths, at(2+i, 5, r))
	}
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 10, phase("steady", false, time.Second, load{latency: 2 * time.Millisecond, n: 100})),
	}}
	for _, v := range mustCompile(t, ths...).Judge(res, JudgeOptions{}) {
		if v.Status != results.StatusPass {
			t.Errorf("%s: %s (%s%s)", v.Rule, v.Status, v.Actual, v.Reason)
		}
	}
}

// openPhase is an open-model phase: every request left lag late, and
// dropped arrivals were never sent.
func openPhase(l load, lag time.Duration, dropped int64) *results.PhaseResult {
	p := phase("steady", false, time.Second, l)
	p.Rate = &scenarios.Rate{From: 1000, To: 1000}
	p.Dropped = dropped
	p.SendLag = results.NewHistogram()
	for range p.Requests {
		p.SendLag.Record(lag)
	}
	return p
}

// trialsPhase is a phase run once per entry of rps, one second each, merged
// the way the runner merges trials.
func trialsPhase(rps ...int64) *results.PhaseResult {
	var total int64
	for _, r := range rps {
		total += r
	}
	p := phase("steady", false, time.Duration(len(rps))*time.Second, load{latency: time.Millisecond, n: total})
	for _, r := range rps {
		p.Trials = append(p.Trials, results.Trial{Requests: r, Elapsed: time.Second, RPS: float64(r), P50: time.Millisecond, P99: time.Millisecond})
	}
	return p
}

func TestJudgeOpenModel(t *testing.T) {
	rules := mustCompile(t,
		at(2, 5, "dropped == 0"),
		at(3, 5, "send_lag.p99 < 5ms"),
	)
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		// Behind max_in_flight: arrivals dropped, the rest sent late.
		caseOf("web", 1, openPhase(load{latency: time.Millisecond, n: 900}, 20*time.Millisecond, 100)),
		// Kept up: nothing dropped, sent within a fraction of a millisecond.
		caseOf("web", 2, openPhase(load{latency: time.Millisecond, n: 1000}, 300*time.Microsecond, 0)),
		// The closed model drops nothing and has no schedule to lag behind.
		caseOf("web", 3, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 1000})),
	}}
	want := []brief{
		{Case: "web concurrency=1", Rule: "dropped == 0", Status: results.StatusFail, Actual: "dropped = 100"},
		{Case: "web concurrency=1", Rule: "send_lag.p99 < 5ms", Status: results.StatusFail, Actual: "send_lag.p99 = 20ms"},
		{Case: "web concurrency=2", Rule: "dropped == 0", Status: results.StatusPass, Actual: "dropped = 0"},
		{Case: "web concurrency=2", Rule: "send_lag.p99 < 5ms", Status: results.StatusPass, Actual: "send_lag.p99 = 300µs"},
		{Case: "web concurrency=3", Rule: "dropped == 0", Status: results.StatusPass, Actual: "dropped = 0"},
		{Case: "web concurrency=3", Rule: "send_lag.p99 < 5ms", Status: results.StatusPass, Actual: "send_lag.p99 = 0s"},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeTrials(t *testing.T) {
	rules := mustCompile(t,
		at(2, 5, "rps == 1000"),
		at(3, 5, "trials == 3 && rps_cv < 20%"),
		at(4, 5, "trials == 1 && rps_cv == 0"),
	)
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		// 3200 requests in 3 s pool to 1066.7 rps; the median trial is 1000.
		caseOf("web", 1, trialsPhase(900, 1000, 1300)),
		caseOf("web", 2, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 1000})),
	}}
	want := []brief{
		{Case: "web concurrency=1", Rule: "rps == 1000", Status: results.StatusPass, Actual: "rps = 1000"},
		// CV: stddev 208.2 / mean 1066.7.
		{Case: "web concurrency=1", Rule: "trials == 3 && rps_cv < 20%", Status: results.StatusPass, Actual: "trials = 3, rps_cv = 0.195"},
		{Case: "web concurrency=1", Rule: "trials == 1 && rps_cv == 0", Status: results.StatusFail, Actual: "trials = 3, rps_cv = 0.195"},
		{Case: "web concurrency=2", Rule: "rps == 1000", Status: results.StatusPass, Actual: "rps = 1000"},
		{Case: "web concurrency=2", Rule: "trials == 3 && rps_cv < 20%", Status: results.StatusFail, Actual: "trials = 1, rps_cv = 0"},
		{Case: "web concurrency=2", Rule: "trials == 1 && rps_cv == 0", Status: results.StatusPass, Actual: "trials = 1, rps_cv = 0"},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeGeneratorHealth(t *testing.T) {
	rules := mustCompile(t,
		at(2, 5, "!generator.saturated"),
		at(3, 5, "generator.cpu < 90%"),
	)
	// Busy but every arrival left: judged, and the rules can refuse it.
	busy := openPhase(load{latency: time.Millisecond, n: 1000}, 20*time.Millisecond, 0)
	busy.Generator = results.Generator{CPU: 0.97, SchedLagP99: 40 * time.Millisecond, Saturated: true, Reason: "late"}
	healthy := openPhase(load{latency: time.Millisecond, n: 1000}, 300*time.Microsecond, 0)
	healthy.Generator = results.Generator{CPU: 0.2}
	// Busy and 30 % of the arrivals never left: not judged at all.
	starved := openPhase(load{latency: time.Millisecond, n: 700}, 20*time.Millisecond, 300)
	starved.Generator = busy.Generator
	res := &results.ScenarioResult{Cases: []*results.CaseResult{caseOf("web", 1, busy), caseOf("web", 2, healthy), caseOf("web", 3, starved)}}
	notJudged := results.ReasonInvalid + "phase steady: the generator sent 70 % of the requested 1,000/s (700 of 1,000 due arrivals); late"
	want := []brief{
		{Case: "web concurrency=1", Rule: "!generator.saturated", Status: results.StatusFail, Actual: "generator.saturated = true"},
		{Case: "web concurrency=1", Rule: "generator.cpu < 90%", Status: results.StatusFail, Actual: "generator.cpu = 0.97"},
		{Case: "web concurrency=2", Rule: "!generator.saturated", Status: results.StatusPass, Actual: "generator.saturated = false"},
		{Case: "web concurrency=2", Rule: "generator.cpu < 90%", Status: results.StatusPass, Actual: "generator.cpu = 0.2"},
		{Case: "web concurrency=3", Rule: "!generator.saturated", Status: results.StatusNotJudged, Reason: notJudged},
		{Case: "web concurrency=3", Rule: "generator.cpu < 90%", Status: results.StatusNotJudged, Reason: notJudged},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestJudgeGRPCCodesAndMessages(t *testing.T) {
	p := phase("steady", false, time.Second, load{latency: time.Millisecond, n: 100, failed: 12})
	p.Errors.AddGRPC("UNAVAILABLE", 10)
	p.Errors.AddGRPC("INTERNAL", 2)
	p.Messages = 880
	res := &results.ScenarioResult{Cases: []*results.CaseResult{caseOf("echo", 4, p)}}
	tests := []struct {
		rule   string
		status results.Status
		actual string
	}{
		{`errors.grpc["UNAVAILABLE"] == 10`, results.StatusPass, "errors.grpc.UNAVAILABLE = 10"},
		{`errors.grpc["UNAVAILABLE"] < 5`, results.StatusFail, "errors.grpc.UNAVAILABLE = 10"},
		{`errors.grpc["NOT_FOUND"] == 0`, results.StatusPass, "errors.grpc.NOT_FOUND = 0"},
		{`messages >= 880`, results.StatusPass, "messages = 880"},
		{`messages > 1000`, results.StatusFail, "messages = 880"},
	}
	for _, tt := range tests {
		judgeOne(t, res, tt.rule, tt.status, tt.actual)
	}
	// A case with no gRPC status counted has a nil map: it still reads 0.
	none := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("web", 1, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 10}))}}
	got := briefs(mustCompile(t, at(2, 5, `errors.grpc["UNAVAILABLE"] == 0`)).Judge(none, JudgeOptions{}))
	if len(got) != 1 || got[0].Status != results.StatusPass {
		t.Errorf("nil errors.grpc: verdicts = %+v, want a pass", got)
	}
}

func TestJudgeStatusCodes(t *testing.T) {
	p := phase("steady", false, time.Second, load{latency: time.Millisecond, n: 100, failed: 12})
	p.StatusCodes = map[string]int64{"200": 88, "503": 12}
	res := &results.ScenarioResult{Cases: []*results.CaseResult{caseOf("web", 4, p)}}
	tests := []struct {
		rule   string
		status results.Status
		actual string
	}{
		{`status["503"] < 10`, results.StatusFail, `status["503"] = 12`},
		{`status["200"] == 88`, results.StatusPass, `status["200"] = 88`},
		{`status["404"] == 0`, results.StatusPass, `status["404"] = 0`}, // never seen: 0
		{`status.other == 0`, results.StatusPass, `status.other = 0`},
		{`status["503"] / requests < 15%`, results.StatusPass, `status["503"] = 12, requests = 100`},
	}
	for _, tt := range tests {
		judgeOne(t, res, tt.rule, tt.status, tt.actual)
	}
	// A target that counts no status (gRPC, TCP) has a nil map: it reads 0.
	none := &results.ScenarioResult{Cases: []*results.CaseResult{
		caseOf("tcp", 1, phase("steady", false, time.Second, load{latency: time.Millisecond, n: 10}))}}
	got := briefs(mustCompile(t, at(2, 5, `status["200"] == 0`)).Judge(none, JudgeOptions{}))
	if len(got) != 1 || got[0].Status != results.StatusPass {
		t.Errorf("nil status: verdicts = %+v, want a pass", got)
	}
}

func TestJudgeStallMax(t *testing.T) {
	frozen := phase("m", false, 5*time.Second, load{latency: time.Millisecond, n: 100})
	frozen.Stalls = []results.Stall{{At: time.Second, Duration: 2 * time.Second, Waiting: 4}, {At: 4 * time.Second, Duration: 1200 * time.Millisecond, Waiting: 1}}
	frozen.Series = nil
	calm := phase("m", false, 5*time.Second, load{latency: time.Millisecond, n: 100})
	for _, tt := range []struct {
		name   string
		p      *results.PhaseResult
		rule   string
		status results.Status
		actual string
	}{
		{"the longest of two stalls", frozen, "stall_max < 1s", results.StatusFail, "stall_max = 2s"},
		{"within a generous bound", frozen, "stall_max <= 2s", results.StatusPass, "stall_max = 2s"},
		{"no stall reads 0", calm, "stall_max == 0s", results.StatusPass, "stall_max = 0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &results.ScenarioResult{Cases: []*results.CaseResult{caseOf("web", 1, tt.p)}}
			judgeOne(t, res, tt.rule, tt.status, tt.actual)
		})
	}
}
