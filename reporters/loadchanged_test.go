package reporters

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

const loadChangedScenario = `version: 1
name: gate
targets:
  - name: hello
    http: { url: "http://127.0.0.1:18080/" }
phases:
  - { name: measured, duration: 1s, concurrency: 4, trials: 5 }
thresholds:
  - '!regressed("rps", 5%)'
  - p99 < 1s
`

// loadRun is a run of scenario src whose case "hello" ran trials at the
// given rps, judged against base when it is not nil.
func loadRun(t *testing.T, src string, end time.Time, base *results.Run, failOnInconclusive bool, rps ...int64) *results.Run {
	t.Helper()
	sc, err := scenarios.Parse("gate.yaml", []byte(src), scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := assertions.Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	shape := gateRun(end, hostA, time.Millisecond, rps...).Scenarios[0].Cases[0]
	res := &results.ScenarioResult{Scenario: sc, Start: end.Add(-time.Minute), End: end,
		Cases: []*results.CaseResult{{ID: "hello", Target: "hello", Phases: shape.Phases}}}
	meta := results.Meta{Version: "1.2.3", Host: hostA, Start: res.Start, End: end}
	opts := assertions.JudgeOptions{FailOnInconclusive: failOnInconclusive}
	if base != nil {
		bl := results.NewBaseline("base.json", []string{"base.json"}, []*results.Run{base})
		meta.Baseline, opts.Baseline = bl, bl
	}
	return results.NewRun(meta, []results.ScenarioInput{{Result: res, Scenario: sc, Verdicts: rules.Judge(res, opts)}})
}

func TestChangedLoadIsNotComparedInAnyReport(t *testing.T) {
	base := loadRun(t, loadChangedScenario, t0, nil, false, 1000, 1010, 990, 1005, 995)
	edited := strings.Replace(loadChangedScenario, "concurrency: 4", "concurrency: 1", 1)
	// A quarter of the throughput at a quarter of the concurrency: the
	// test changed, not the code.
	run := loadRun(t, edited, t0.Add(time.Hour), base, false, 250, 252, 248, 251, 249)

	c := run.Scenarios[0].Cases[0]
	if c.Load == nil || c.Baseline == nil || strings.Join(c.Baseline.LoadDifferences, "; ") != "concurrency 4 → 1" {
		t.Fatalf("case load %+v, baseline %+v", c.Load, c.Baseline)
	}
	byRule := map[string]results.Verdict{}
	for _, v := range c.Verdicts {
		byRule[v.Rule] = v
	}
	if v := byRule[`!regressed("rps", 5%)`]; v.Status != results.StatusIncomparable ||
		v.Reason != results.ReasonIncomparable+"concurrency 4 → 1" || v.Fails() {
		t.Errorf("the regressed() rule: %+v", v)
	}
	if v := byRule["p99 < 1s"]; v.Status != results.StatusPass {
		t.Errorf("a rule that compares with nothing is still judged: %+v", v)
	}
	if !run.Passed {
		t.Error("an incomparable verdict failed the run without --fail-on-inconclusive")
	}

	const headline = "✅ loadgate: passed · ⚠ 1 undecided (incomparable 1)"
	if got := Headline(run); got != headline {
		t.Errorf("headline %q, want %q", got, headline)
	}
	var md, html, junit bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&junit, run); err != nil {
		t.Fatal(err)
	}
	for doc, wants := range map[string][]string{
		md.String(): {"## " + headline + "\n", "| ≠ not compared: the load changed |",
			"> ≠ `hello`: the load changed since the baseline (concurrency 4 → 1)",
			"| ≠ | `hello` | `!regressed(\"rps\", 5%)` |", "1 incomparable"},
		html.String(): {"loadgate: passed · ", "1 undecided (incomparable 1)</h1>", `<h1 class="headline warn">`, "≠ not compared: the load changed"},
		junit.String(): {`<property name="headline" value="` + headline + `">`,
			`<skipped message="incomparable: not compared: the load changed since the baseline: concurrency 4 → 1">`},
	} {
		for _, w := range wants {
			if !strings.Contains(doc, w) {
				t.Errorf("output lacks %q:\n%s", w, doc)
			}
		}
	}

	failing := loadRun(t, edited, t0.Add(time.Hour), base, true, 250, 252, 248, 251, 249)
	if failing.Passed || !strings.HasPrefix(Headline(failing), "❌ loadgate: failed · ⚠ 1 undecided (incomparable 1), failing the run by --fail-on-inconclusive") {
		t.Errorf("--fail-on-inconclusive: passed %v, headline %q", failing.Passed, Headline(failing))
	}
}

func TestThresholdEditKeepsTheComparison(t *testing.T) {
	base := loadRun(t, loadChangedScenario, t0, nil, false, 1000, 1010, 990, 1005, 995)
	edited := strings.Replace(loadChangedScenario, "p99 < 1s", "p99 < 2s\n  - error_rate < 1%", 1)
	run := loadRun(t, edited, t0.Add(time.Hour), base, false, 800, 805, 795, 802, 798)
	v := run.Scenarios[0].Cases[0].Verdicts[0]
	if v.Status != results.StatusFail || !strings.Contains(v.Reason, "rps 20.0% lower") {
		t.Errorf("a threshold-only edit: %+v, want the regression judged", v)
	}
	if Headline(run) != "❌ loadgate: failed" {
		t.Errorf("headline %q", Headline(run))
	}
}

func TestUndecidedHeadlineIsNotPlainGreen(t *testing.T) {
	base := loadRun(t, loadChangedScenario, t0, nil, false, 1000, 1010, 990)
	// 3 vs 3 trials cannot decide a 20 % drop.
	run := loadRun(t, loadChangedScenario, t0.Add(time.Hour), base, false, 800, 805, 795)
	if !run.Passed || Headline(run) != "✅ loadgate: passed · ⚠ 1 undecided (inconclusive 1)" {
		t.Errorf("passed %v, headline %q", run.Passed, Headline(run))
	}
	if h := runHeadline(run); h.Class != "warn" {
		t.Errorf("class %q, want warn: an undecided pass must not look plain green", h.Class)
	}
}

func TestCompareRefusesToJudgeAChangedLoad(t *testing.T) {
	base := loadRun(t, loadChangedScenario, t0, nil, false, 1000, 1010, 990, 1005, 995)
	edited := strings.Replace(loadChangedScenario, "duration: 1s", "duration: 2s", 1)
	cand := loadRun(t, edited, t0.Add(time.Hour), nil, false, 500, 505, 495, 502, 498)
	c, err := assertions.Compare(base, cand, assertions.CompareOptions{Tolerance: 0.05, BaseName: "base.json", NewName: "new.json"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Incomparable() != 1 || c.Count("regressed") != 0 {
		t.Errorf("incomparable %d, regressed %d", c.Incomparable(), c.Count("regressed"))
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"## ✅ loadgate compare: no regression · ⚠ 1 undecided (incomparable 1)",
		"0 cases compared · tolerance 5.0%", "1 case not compared: the load changed",
		"| rps | 1,000.0 | 500.0 | ≠ |",
		"> ≠ **Not compared: the load changed** (duration 1s → 2s)",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("comparison lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "| judgement |") {
		t.Errorf("a case of another load was judged:\n%s", b.String())
	}
}

func TestDeltaIsTheVerdictsFigure(t *testing.T) {
	// Trials whose pooled p99 and median-trial p99 differ: the cases
	// table must quote the one the verdict compares.
	base := loadRun(t, loadChangedScenario, t0, nil, false, 1000, 1010, 990, 1005, 995)
	run := loadRun(t, loadChangedScenario, t0.Add(time.Hour), base, false, 800, 805, 795, 802, 798)
	v := run.Scenarios[0].Cases[0].Verdicts[0]
	var md bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Reason, "rps 20.0% lower") || !strings.Contains(md.String(), "rps −20.0%, p99 0.0% (median of 5 vs 5 trials)") {
		t.Errorf("verdict %q; summary:\n%s", v.Reason, md.String())
	}
}
