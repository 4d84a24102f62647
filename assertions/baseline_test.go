package assertions

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// fakeBaseline serves cases keyed "scenario|case|phase" and remembers what
// was asked for.
type fakeBaseline struct {
	cases map[string]results.BaselineCase
	asked []string
}

func (f *fakeBaseline) Case(scenario, caseID, phase string) (results.BaselineCase, bool) {
	key := scenario + "|" + caseID + "|" + phase
	f.asked = append(f.asked, key)
	c, ok := f.cases[key]
	return c, ok
}

var _ Baseline = (*fakeBaseline)(nil)

// trialRun is a phase of one-second trials with the given rps and a p50
// of p50 each; latencies are recorded so that baseline.p50 reads p50.
func trialRun(name string, p50 time.Duration, rps ...int64) *results.PhaseResult {
	var total int64
	for _, r := range rps {
		total += r
	}
	p := phase(name, false, time.Duration(len(rps))*time.Second, load{latency: p50, n: total})
	if len(rps) == 1 {
		return p // a phase run once carries no trials
	}
	for _, r := range rps {
		p.Trials = append(p.Trials, results.Trial{Requests: r, Elapsed: time.Second, RPS: float64(r), P50: p50, P99: p50})
	}
	return p
}

func judgeAgainst(t *testing.T, base *results.CaseResult, cand *results.CaseResult, opts JudgeOptions, ths ...scenarios.Threshold) []results.Verdict {
	t.Helper()
	sc := testScenario(ths...)
	fb := &fakeBaseline{cases: map[string]results.BaselineCase{}}
	if base != nil {
		// The baseline's usage covers its measured phases together, as a
		// baseline run's does.
		withServer := func(bc results.BaselineCase) results.BaselineCase { bc.Server = base.Server; return bc }
		fb.cases["load|"+base.ID+"|"] = withServer(results.NewBaselineCase(base.Measured("")))
		for _, p := range base.Measured("") {
			fb.cases["load|"+base.ID+"|"+p.Name] = withServer(results.NewBaselineCase(base.Measured(p.Name)))
		}
	}
	opts.Baseline = fb
	rules, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	return rules.Judge(&results.ScenarioResult{Scenario: sc, Cases: []*results.CaseResult{cand}}, opts)
}

func TestRegressedVerdicts(t *testing.T) {
	base := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000, 1010, 990, 1005, 995))
	// Three trials a side can never be significant: the trials are 3 vs 3
	// wherever the candidate runs three.
	base3 := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000, 1010, 990))
	noRegress := at(2, 5, `!regressed("rps", 5%)`)
	for _, tc := range []struct {
		name   string
		cand   *results.CaseResult
		rule   scenarios.Threshold
		status results.Status
		reason string
		actual string
	}{
		{"same throughput passes", caseOf("web", 10, trialRun("steady", time.Millisecond, 1002, 998, 1008, 993, 1001)),
			noRegress, results.StatusPass, "rps 0.1% higher, within the 5.0% tolerance", "rps = 1001 (baseline 1000)"},
		{"10% slower is a regression", caseOf("web", 10, trialRun("steady", time.Millisecond, 900, 905, 895, 898, 903)),
			noRegress, results.StatusFail, "rps 10.0% lower, beyond the 5.0% tolerance and significant (p = 0.008, 5 vs 5 trials)", "rps = 900 (baseline 1000)"},
		{"3 trials cannot tell", caseOf("web", 10, trialRun("steady", time.Millisecond, 900, 905, 895)),
			noRegress, results.StatusInconclusive, "rps 10.0% lower, beyond the 5.0% tolerance, but 3 vs 3 trials cannot show significance: the smallest p they can give is 0.100 (use trials: 5 or more)", "rps = 900 (baseline 1000)"},
		{"latency is worse upwards", caseOf("web", 10, trialRun("steady", 2*time.Millisecond, 1000, 1010, 990, 1005, 995)),
			at(2, 5, `!regressed("p50", 10%)`), results.StatusFail, "p50 100.0% higher, beyond the 10.0% tolerance and significant", "p50 = 2ms (baseline 1ms)"},
		{"lower latency is no regression", caseOf("web", 10, trialRun("steady", 500*time.Microsecond, 1000, 1010, 990, 1005, 995)),
			at(2, 5, `!regressed("latency.p99", 10%)`), results.StatusPass, "latency.p99 50.0% lower, within the 10.0% tolerance", "latency.p99 = 500µs (baseline 1ms)"},
		// The rule fails on p99 whatever the trials would say about rps.
		{"inconclusive that does not matter", caseOf("web", 10, trialRun("steady", time.Millisecond, 900, 905, 895)),
			at(2, 5, `!regressed("rps", 5%) && p99 < 100us`), results.StatusFail, "rps 10.0% lower", "p99 = 1ms, rps = 900 (baseline 1000)"},
		{"inconclusive either way", caseOf("web", 10, trialRun("steady", time.Millisecond, 900, 905, 895)),
			at(2, 5, `regressed("rps", 5%) || p99 < 100us`), results.StatusInconclusive, "rps 10.0% lower", "p99 = 1ms, rps = 900 (baseline 1000)"},
		// Two undecided comparisons in opposite senses: the extremes agree
		// (false), but one mixed answer makes the rule true.
		{"every answer is tried", caseOf("web", 10, trialRun("steady", 2*time.Millisecond, 900, 905, 895)),
			at(2, 5, `regressed("rps", 5%) && !regressed("p50", 10%)`), results.StatusInconclusive, "rps 10.0% lower", ""},
		{"baseline figures", caseOf("web", 10, trialRun("steady", 1100*time.Microsecond, 1000)),
			at(2, 5, `p50 < baseline.p50 * 1.2 && rps >= baseline.rps * 90%`), results.StatusPass, "", "p50 = 1.1ms, baseline.p50 = 1ms, rps = 1000, baseline.rps = 1000"},
		{"baseline ratio", caseOf("web", 10, trialRun("steady", 1300*time.Microsecond, 1000)),
			at(2, 5, `p50 / baseline.p50 < 120%`), results.StatusFail, "", "p50 = 1.3ms, baseline.p50 = 1ms"},
		{"metric chosen at run time", caseOf("web", 10, trialRun("steady", time.Millisecond, 1000)),
			at(2, 5, `!regressed(target, 5%)`), results.StatusError, `regressed: unknown metric "web" (known: rps, p50, p99, latency.p50, latency.p99, error_rate, dropped, capacity)`, `target = "web"`},
		{"negative tolerance", caseOf("web", 10, trialRun("steady", time.Millisecond, 1000)),
			at(2, 5, `!regressed("rps", -5%)`), results.StatusError, "the tolerance must be a fraction of at least 0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			if len(tc.cand.Phases[0].Trials) == 3 {
				b = base3
			}
			vs := judgeAgainst(t, b, tc.cand, JudgeOptions{}, tc.rule)
			if len(vs) != 1 {
				t.Fatalf("got %d verdicts", len(vs))
			}
			v := vs[0]
			if v.Status != tc.status || !strings.Contains(v.Reason, tc.reason) || (tc.actual != "" && v.Actual != tc.actual) {
				t.Errorf("got %s, reason %q, actual %q\nwant %s, reason containing %q, actual %q", v.Status, v.Reason, v.Actual, tc.status, tc.reason, tc.actual)
			}
		})
	}
}

func TestInconclusiveFailsOnlyWhenAsked(t *testing.T) {
	base := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000, 1010, 990))
	cand := caseOf("web", 10, trialRun("steady", time.Millisecond, 900, 905, 895))
	warn := at(3, 5, `!regressed("rps", 5%)`)
	warn.Severity = scenarios.SeverityWarn
	for _, failOn := range []bool{false, true} {
		vs := judgeAgainst(t, base, cand, JudgeOptions{FailOnInconclusive: failOn}, at(2, 5, `!regressed("rps", 5%)`), warn)
		if vs[0].Status != results.StatusInconclusive || vs[0].Fails() != failOn || vs[0].FailOnInconclusive != failOn {
			t.Errorf("FailOnInconclusive %v: %s, Fails() = %v", failOn, vs[0].Status, vs[0].Fails())
		}
		if vs[1].Status != results.StatusInconclusive || vs[1].Fails() {
			t.Errorf("FailOnInconclusive %v: a warn-level inconclusive verdict fails the run", failOn)
		}
	}
}

func TestBaselineMatching(t *testing.T) {
	steady := at(3, 5, `!regressed("rps", 5%)`)
	steady.Phase = "steady"
	ths := []scenarios.Threshold{at(2, 5, `!regressed("rps", 5%)`), steady, at(4, 5, "rps > 0")}
	cand := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000, 1010, 990, 1005, 995), trialRun("spike", time.Millisecond, 500))

	t.Run("no baseline loaded", func(t *testing.T) {
		sc := testScenario(ths...)
		rules, err := Compile(sc)
		if err != nil {
			t.Fatal(err)
		}
		want := []brief{
			{Case: cand.ID, Rule: ths[0].Rule, Status: results.StatusSkip, Reason: ReasonNoBaseline},
			{Case: cand.ID, Phase: "steady", Rule: ths[1].Rule, Status: results.StatusSkip, Reason: ReasonNoBaseline},
			{Case: cand.ID, Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 1000"},
		}
		got := rules.Judge(&results.ScenarioResult{Scenario: sc, Cases: []*results.CaseResult{cand}}, JudgeOptions{})
		if diff := cmp.Diff(want, briefs(got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("no matching case", func(t *testing.T) {
		other := caseOf("web", 20, trialRun("steady", time.Millisecond, 1000))
		vs := judgeAgainst(t, other, cand, JudgeOptions{}, ths...)
		for _, v := range vs[:2] {
			if v.Status != results.StatusSkip || v.Reason != ReasonNoBaselineCase {
				t.Errorf("%s: %s %q, want skip %q", v.Rule, v.Status, v.Reason, ReasonNoBaselineCase)
			}
		}
	})
	t.Run("phase narrowing compares that phase", func(t *testing.T) {
		// The baseline's spike phase is slow; only the unnarrowed rule sees it.
		base := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000, 1010, 990, 1005, 995), trialRun("spike", time.Millisecond, 2000))
		fb := &fakeBaseline{cases: map[string]results.BaselineCase{
			"load|" + base.ID + "|":       results.NewBaselineCase(base.Measured("")),
			"load|" + base.ID + "|steady": results.NewBaselineCase(base.Measured("steady")),
		}}
		sc := testScenario(ths...)
		rules, _ := Compile(sc)
		vs := rules.Judge(&results.ScenarioResult{Scenario: sc, Cases: []*results.CaseResult{cand}}, JudgeOptions{Baseline: fb})
		if diff := cmp.Diff([]string{"load|web concurrency=10|", "load|web concurrency=10|steady"}, fb.asked); diff != "" {
			t.Errorf("lookups (-want +got):\n%s", diff)
		}
		if vs[1].Status != results.StatusPass || !strings.Contains(vs[1].Reason, "5 vs 5 trials") && !strings.Contains(vs[1].Reason, "within") {
			t.Errorf("steady: %s %q", vs[1].Status, vs[1].Reason)
		}
		// Six trials a side: five steady ones and the spike's single run.
		if vs[0].Actual != "rps = 997.5 (baseline 1002.5)" {
			t.Errorf("whole case: %s %q %q", vs[0].Status, vs[0].Actual, vs[0].Reason)
		}
	})
}

func TestTrialsOf(t *testing.T) {
	once := phase("a", false, 2*time.Second, load{latency: time.Millisecond, n: 100, failed: 10})
	twice := trialRun("b", 3*time.Millisecond, 40, 60)
	got := results.TrialsOf([]*results.PhaseResult{once, twice})
	want := []results.Trial{
		{Requests: 100, Failed: 10, Elapsed: 2 * time.Second, RPS: 50, P50: time.Millisecond, P99: time.Millisecond},
		{Requests: 40, Elapsed: time.Second, RPS: 40, P50: 3 * time.Millisecond, P99: 3 * time.Millisecond},
		{Requests: 60, Elapsed: time.Second, RPS: 60, P50: 3 * time.Millisecond, P99: 3 * time.Millisecond},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	r, err := JudgeRegression("error_rate", got[1:], nil, got[:1], 0.05)
	if err != nil || r.Cand != 0.1 || r.Base != 0 || !strings.HasPrefix(r.Reason, "error_rate changed from zero") {
		t.Errorf("error_rate: %+v %v", r, err)
	}
}
