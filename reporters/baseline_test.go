package reporters

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

var (
	hostA = results.Host{Hostname: "a", OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC 7763", Cores: 4, Runner: "RUNNER_OS=Linux"}
	hostB = results.Host{Hostname: "b", OS: "linux", Arch: "amd64", CPUModel: "Intel Xeon 8370C", Cores: 4, Runner: "RUNNER_OS=Linux"}
)

// gateRun is a one-scenario results document (the same as the results
// package's test helper: test helpers cannot be shared across packages) whose case "hello" ran
// trials of one second each with the given rps; p50 and p99 are fixed.
func gateRun(end time.Time, host results.Host, p50 time.Duration, rps ...int64) *results.Run {
	var total int64
	for _, r := range rps {
		total += r
	}
	p := &results.PhaseResult{
		Name: "measured", Start: end.Add(-time.Duration(len(rps)) * time.Second), End: end,
		Elapsed: time.Duration(len(rps)) * time.Second, Latency: results.NewHistogram(), Connect: results.NewHistogram(),
	}
	p.Requests, p.Succeeded = total, total
	for range total {
		p.Latency.Record(p50)
	}
	for _, r := range rps {
		p.Trials = append(p.Trials, results.Trial{Requests: r, Elapsed: time.Second, RPS: float64(r), P50: p50, P99: p50})
	}
	res := &results.ScenarioResult{
		Scenario: &scenarios.Scenario{Name: "gate", File: "gate.yaml"},
		Start:    p.Start, End: end,
		Cases: []*results.CaseResult{
			{ID: "hello", Target: "hello", Phases: []*results.PhaseResult{p}},
			{ID: "broken", Target: "broken", Err: "no request completed"},
		},
	}
	return results.NewRun(results.Meta{Version: "1.2.3", Host: host, Start: p.Start, End: end}, []results.ScenarioInput{{Result: res}})
}

// judgedRun is gateRun judged against base with the rules a gate uses.
func judgedRun(t *testing.T, base *results.Run, strict, failOnInconclusive bool, rps ...int64) *results.Run {
	t.Helper()
	pos := func(line int) scenarios.Pos { return scenarios.Pos{File: "gate.yaml", Line: line, Col: 5} }
	sc := &scenarios.Scenario{Name: "gate", File: "gate.yaml", Thresholds: []scenarios.Threshold{
		{Rule: `!regressed("rps", 5%)`, RulePos: pos(10)},
		{Rule: `!regressed("p50", 10%)`, RulePos: pos(11)},
		{Rule: `p99 < baseline.p99 * 1.2`, RulePos: pos(12)},
	}}
	rules, err := assertions.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	cand := gateRun(t0.Add(time.Hour), hostB, 2*time.Millisecond, rps...)
	bl := results.NewBaseline("base.json", []string{"base.json"}, []*results.Run{base})
	c := cand.Scenarios[0].Cases[0]
	res := &results.ScenarioResult{Scenario: sc, Start: t0, End: t0.Add(time.Minute), Cases: []*results.CaseResult{
		{ID: c.ID, Target: c.Target, Phases: c.Phases},
		{ID: "new", Target: "new", Phases: c.Phases},
	}}
	verdicts := rules.Judge(res, assertions.JudgeOptions{Baseline: bl, FailOnInconclusive: failOnInconclusive})
	return results.NewRun(results.Meta{Version: "1.2.3", Host: hostB, Start: t0, End: t0.Add(time.Minute), Baseline: bl, StrictEnv: strict},
		[]results.ScenarioInput{{Result: res, Verdicts: verdicts}})
}

func TestReportsWithBaseline(t *testing.T) {
	base := gateRun(t0, hostA, time.Millisecond, 1000, 1010, 990, 1005, 995)
	run := judgedRun(t, base, false, false, 900, 905, 895)
	statuses := map[string]results.Status{}
	for _, v := range run.Scenarios[0].Cases[0].Verdicts {
		statuses[v.Rule] = v.Status
	}
	want := map[string]results.Status{
		// 5 vs 3 trials, all apart, reach p = 0.036: significant.
		`!regressed("rps", 5%)`:    results.StatusFail,
		`!regressed("p50", 10%)`:   results.StatusFail,
		`p99 < baseline.p99 * 1.2`: results.StatusFail,
	}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Fatalf("verdicts (-want +got):\n%s", diff)
	}
	if run.Passed || run.Baseline == nil || run.Baseline.FingerprintMatch {
		t.Fatalf("run: passed %v, baseline %+v", run.Passed, run.Baseline)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"> ⚠️ **Baseline from a different environment** (`base.json`): cpu_model: baseline \"AMD EPYC 7763\", this run \"Intel Xeon 8370C\".",
		"| errors | Δ vs baseline |",
		"| rps −10.0%, p99 +100.0% (median of 5 vs 3 trials) |",
		"| — (no baseline case) |",
		"rps = 900 (baseline 1000) — rps 10.0% lower, beyond the 5.0% tolerance and significant (p = 0.036, 5 vs 3 trials)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}

	var junit bytes.Buffer
	if err := WriteJUnit(&junit, run); err != nil {
		t.Fatal(err)
	}
	xmllint(t, junit.Bytes())
	for _, want := range []string{
		`<property name="baseline.fingerprint_match" value="false"></property>`,
		`<property name="hello.baseline.rps" value="1000.00"></property>`,
		`BASELINE FROM A DIFFERENT ENVIRONMENT (base.json): cpu_model:`,
		`actual p50 = 2ms (baseline 1ms) — p50 100.0% higher, beyond the 10.0% tolerance and significant`,
		`<skipped message="no matching baseline case">`,
	} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("JUnit lacks %q:\n%s", want, junit.String())
		}
	}

	var js bytes.Buffer
	if err := results.WriteJSON(&js, run); err != nil {
		t.Fatal(err)
	}
	text := js.String()
	back, err := results.ReadRun(&js)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(run.Baseline, back.Baseline); diff != "" {
		t.Errorf("baseline info after a round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(run.Scenarios[0].Cases[0].Baseline, back.Scenarios[0].Cases[0].Baseline); diff != "" {
		t.Errorf("case baseline after a round trip (-want +got):\n%s", diff)
	}
	if !strings.Contains(text, `"fingerprint_match": false`) {
		t.Error("results.json lacks fingerprint_match")
	}
}

func TestReportsInconclusiveAndStrictEnv(t *testing.T) {
	base := gateRun(t0, hostA, time.Millisecond, 1000, 1010, 990)
	for _, failOn := range []bool{false, true} {
		run := judgedRun(t, base, true, failOn, 900, 905, 895)
		v := run.Scenarios[0].Cases[0].Verdicts[0]
		if v.Status != results.StatusInconclusive || v.Fails() != failOn {
			t.Fatalf("3 vs 3 trials: %s, fails %v", v.Status, v.Fails())
		}
		if run.Passed {
			t.Error("--strict-env with a different environment passed")
		}
		var md, junit, console bytes.Buffer
		if err := WriteMarkdown(&md, run); err != nil {
			t.Fatal(err)
		}
		if err := WriteJUnit(&junit, run); err != nil {
			t.Fatal(err)
		}
		xmllint(t, junit.Bytes())
		NewConsole(&console, ConsoleOptions{}).BaselineNote(run.Baseline)
		checks := map[string][]string{
			md.String(): {"| ❔ | `hello` | `!regressed(\"rps\", 5%)` |", "2 inconclusive", "> ❌ **Baseline from a different environment** (`base.json`), which `--strict-env` makes a failure"},
			junit.String(): {`<testcase name="baseline environment" classname="loadgate › gate" time="0.000">`,
				`<failure message="--strict-env: the baseline was measured in a different environment: cpu_model:`},
			console.String(): {"ERROR: the baseline was measured in a different environment, which --strict-env makes a failure: cpu_model:"},
		}
		if failOn {
			checks[md.String()] = append(checks[md.String()], "> ❔ 2 undecided verdicts fail the run")
			checks[junit.String()] = append(checks[junit.String()], `(--fail-on-inconclusive)" type="inconclusive">`)
		} else {
			checks[junit.String()] = append(checks[junit.String()], `<skipped message="inconclusive: rps 10.0% lower, beyond the 5.0% tolerance, but 3 vs 3 trials cannot show significance: the smallest p they can give is 0.100`)
		}
		for doc, wants := range checks {
			for _, w := range wants {
				if !strings.Contains(doc, w) {
					t.Errorf("fail-on-inconclusive %v: output lacks %q:\n%s", failOn, w, doc)
				}
			}
		}
	}
}

func TestCompare(t *testing.T) {
	base := gateRun(t0, hostA, time.Millisecond, 1000, 1010, 990, 1005, 995)
	slower := gateRun(t0.Add(time.Hour), hostA, 2*time.Millisecond, 1002, 998, 1008, 993, 1001)
	c, err := assertions.Compare(base, slower, assertions.CompareOptions{Tolerance: 0.05, BaseName: "base.json", NewName: "new.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.EnvDifferences) != 0 || c.Cases() != 1 || c.Count(regression.Regressed) != 2 || c.Count(regression.Pass) != 2 ||
		!cmp.Equal(c.Scenarios[0].NotRun, []string{"broken"}) {
		t.Fatalf("comparison: %+v", c)
	}
	var got []string
	for _, j := range c.Scenarios[0].Cases[0].Judgements {
		got = append(got, string(j.Status)+": "+j.Reason)
	}
	want := []string{
		"pass: rps 0.1% higher, within the 5.0% tolerance",
		"regressed: p50 100.0% higher, beyond the 5.0% tolerance and significant (p = 0.008, 5 vs 5 trials)",
		"regressed: p99 100.0% higher, beyond the 5.0% tolerance and significant (p = 0.008, 5 vs 5 trials)",
		"pass: error_rate unchanged, within the 5.0% tolerance",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("judgements (-want +got):\n%s", diff)
	}

	var b bytes.Buffer
	if err := WriteCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"## ❌ loadgate compare: regressed",
		"- **base** `base.json`: loadgate 1.2.3 · host `a`",
		"1 case compared · tolerance 5.0% · Mann–Whitney U on per-trial figures at α = 0.05 · 2 regressed, 0 inconclusive, 2 passed",
		"Environment: the same fingerprint",
		"| rps (median trial) | 1,000.0 | 1,001.0 | +0.1% |",
		"| p50 (median trial) | 1.00ms | 2.00ms | +100.0% |",
		"median trial: the median of the 5 vs 5 trials' figures, which the judgements compare",
		"| trials | 5 | 5 | |",
		"| ❌ | p50 100.0% higher",
		"Not compared, as it measured nothing on one side: `broken`",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("comparison lacks %q:\n%s", w, b.String())
		}
	}

	// Another machine, a scenario only on one side.
	other := gateRun(t0.Add(time.Hour), hostB, time.Millisecond, 1000, 1010)
	other.Scenarios = append(other.Scenarios, &results.ScenarioRun{Name: "extra", Cases: []*results.CaseRun{{ID: "x"}}})
	c, _ = assertions.Compare(base, other, assertions.CompareOptions{Tolerance: 0.05})
	b.Reset()
	if err := WriteCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"> ⚠️ **Different environments:** cpu_model: base \"AMD EPYC 7763\", new \"Intel Xeon 8370C\"", "### extra", "Only in new: `x`"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("comparison lacks %q:\n%s", w, b.String())
		}
	}
}

func TestFmtDelta(t *testing.T) {
	for _, tc := range []struct {
		base, cur float64
		want      string
	}{
		{100, 110, "+10.0%"},
		{100, 90, "−10.0%"},
		{100, 100.01, "0.0%"}, // below the shown precision
		{0, 0, "0.0%"},
		{0, 5, "—"}, // no base to scale by
	} {
		if got := fmtDelta(tc.base, tc.cur); got != tc.want {
			t.Errorf("fmtDelta(%v, %v) = %q, want %q", tc.base, tc.cur, got, tc.want)
		}
	}
}
