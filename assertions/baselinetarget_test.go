package assertions

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// abScenario has a reference target main and, for each candidate name, a
// target that names main as its baseline_target, over concurrency 1 and 2.
func abScenario(candidates []string, ths ...scenarios.Threshold) *scenarios.Scenario {
	sc := &scenarios.Scenario{
		File:       "ab.yaml",
		Name:       "ab",
		Matrix:     []scenarios.Axis{{Key: "concurrency"}},
		Thresholds: ths,
	}
	sc.Targets = append(sc.Targets, scenarios.Target{Name: "main"})
	for _, c := range candidates {
		sc.Targets = append(sc.Targets, scenarios.Target{Name: c, BaselineTarget: "main"})
	}
	for _, t := range sc.Targets {
		for _, n := range []int64{1, 2} {
			c := caseOf(t.Name, n)
			sc.Cases = append(sc.Cases, scenarios.Case{ID: c.ID, Target: t, Matrix: c.Matrix})
		}
	}
	return sc
}

// abCase is a case of five one-second trials with the given p50s (p99 is
// twice each), 1000 requests each.
func abCase(target string, concurrency int64, p50s ...time.Duration) *results.CaseResult {
	p := phase("measured", false, time.Duration(len(p50s))*time.Second, load{latency: p50s[0], n: 1000 * int64(len(p50s))})
	for _, d := range p50s {
		p.Trials = append(p.Trials, results.Trial{Requests: 1000, Elapsed: time.Second, RPS: 1000, P50: d, P99: 2 * d})
	}
	return caseOf(target, concurrency, p)
}

// Five trials a side around 1 ms and around 3 ms.
var (
	fast  = []time.Duration{980 * time.Microsecond, time.Millisecond, 1020 * time.Microsecond, 990 * time.Microsecond, 1010 * time.Microsecond}
	fast2 = []time.Duration{995 * time.Microsecond, 1015 * time.Microsecond, 985 * time.Microsecond, 1005 * time.Microsecond, 1001 * time.Microsecond}
	slow  = []time.Duration{2900 * time.Microsecond, 3 * time.Millisecond, 3100 * time.Microsecond, 3050 * time.Microsecond, 2950 * time.Microsecond}
)

func judgeAB(t *testing.T, sc *scenarios.Scenario, opts JudgeOptions, cases ...*results.CaseResult) []results.Verdict {
	t.Helper()
	rules, err := Compile(sc)
	if err != nil {
		t.Fatal(err)
	}
	return rules.Judge(&results.ScenarioResult{Scenario: sc, Cases: cases}, opts)
}

func TestSameJobAB(t *testing.T) {
	noRegress := at(2, 5, `!regressed("p50", 10%)`)
	sc := abScenario([]string{"pr", "same"}, noRegress)
	vs := judgeAB(t, sc, JudgeOptions{},
		abCase("main", 1, fast...),
		abCase("pr", 1, slow...),    // three times slower: a regression
		abCase("same", 1, fast2...), // an A/A pair: the same build twice
	)
	type ab struct {
		Case           string
		Status         results.Status
		BaselineTarget string
	}
	var got []ab
	for _, v := range vs {
		got = append(got, ab{v.Case, v.Status, v.BaselineTarget})
	}
	want := []ab{
		// The reference's own rule compares with --baseline, which is not loaded.
		{"main concurrency=1", results.StatusSkip, ""},
		{"pr concurrency=1", results.StatusFail, "main"},
		{"same concurrency=1", results.StatusPass, "main"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("verdicts (-want +got):\n%s", diff)
	}
	if vs[0].Reason != ReasonNoBaseline {
		t.Errorf("reference: reason %q, want %q", vs[0].Reason, ReasonNoBaseline)
	}
	if pr := vs[1]; pr.Actual != "p50 = 3ms (baseline 1ms)" || !strings.HasPrefix(pr.Reason, "p50 200.0% higher, beyond the 10.0% tolerance and significant") {
		t.Errorf("candidate: actual %q, reason %q", pr.Actual, pr.Reason)
	}
}

func TestSameJobABMatchesMatrixValues(t *testing.T) {
	// Each candidate case compares with the reference case of its own
	// concurrency: pr at 1 regressed against a fast main at 1, while pr
	// at 2 is no slower than main at 2, whose own p50 (baseline.p50) then
	// fails the second half of the rule.
	sc := abScenario([]string{"pr"}, at(2, 5, `!regressed("p50", 10%) && baseline.p50 < 2ms`))
	vs := judgeAB(t, sc, JudgeOptions{},
		abCase("main", 1, fast...),
		abCase("main", 2, slow...),
		abCase("pr", 1, slow...),
		abCase("pr", 2, slow...),
	)
	want := []brief{
		{Case: "main concurrency=1", Rule: sc.Thresholds[0].Rule, Status: results.StatusSkip, Reason: ReasonNoBaseline},
		{Case: "main concurrency=2", Rule: sc.Thresholds[0].Rule, Status: results.StatusSkip, Reason: ReasonNoBaseline},
		{Case: "pr concurrency=1", Rule: sc.Thresholds[0].Rule, Status: results.StatusFail,
			Actual: "baseline.p50 = 980µs, p50 = 3ms (baseline 1ms)", Reason: "p50 200.0% higher, beyond the 10.0% tolerance and significant (p = 0.008, 5 vs 5 trials)"},
		{Case: "pr concurrency=2", Rule: sc.Thresholds[0].Rule, Status: results.StatusFail,
			Actual: "baseline.p50 = 2.9ms, p50 = 3ms (baseline 3ms)", Reason: "p50 unchanged, within the 10.0% tolerance"},
	}
	if diff := cmp.Diff(want, briefs(vs)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

func TestSameJobABWinsOverBaselineFile(t *testing.T) {
	// The --baseline file holds a pr case as slow as this run's, which
	// would pass; the same-job reference is three times faster and wins.
	sc := abScenario([]string{"pr"}, at(2, 5, `!regressed("p50", 10%)`))
	oldPR, oldMain := abCase("pr", 1, slow...), abCase("main", 1, fast...)
	fb := &fakeBaseline{cases: map[string]results.BaselineCase{
		"ab|" + oldPR.ID + "|":   results.NewBaselineCase(oldPR.Measured("")),
		"ab|" + oldMain.ID + "|": results.NewBaselineCase(oldMain.Measured("")),
	}}
	vs := judgeAB(t, sc, JudgeOptions{Baseline: fb}, abCase("main", 1, fast2...), abCase("pr", 1, slow...))
	if vs[0].Status != results.StatusPass || vs[0].BaselineTarget != "" {
		t.Errorf("reference against --baseline: %s (baseline target %q), want pass", vs[0].Status, vs[0].BaselineTarget)
	}
	if vs[1].Status != results.StatusFail || vs[1].BaselineTarget != "main" {
		t.Errorf("candidate: %s (baseline target %q), want fail against main", vs[1].Status, vs[1].BaselineTarget)
	}
	if diff := cmp.Diff([]string{"ab|main concurrency=1|"}, fb.asked); diff != "" {
		t.Errorf("--baseline lookups (-want +got):\n%s", diff)
	}
}

func TestSameJobABNothingToCompare(t *testing.T) {
	steady := at(3, 5, `!regressed("p50", 10%)`)
	steady.Phase = "steady"
	ths := []scenarios.Threshold{at(2, 5, `!regressed("p50", 10%)`), steady, at(4, 5, "p50 < 5ms")}
	for _, tc := range []struct {
		name   string
		ref    *results.CaseResult
		reason []string // of the two regressed() rules
	}{
		{"no reference case", abCase("main", 2, fast...), []string{
			`baseline target "main" has no case with the same matrix values`,
			`baseline target "main" has no case with the same matrix values`}},
		{"reference not carried out", &results.CaseResult{ID: "main concurrency=1", Target: "main",
			Matrix: caseOf("main", 1).Matrix, Err: "server did not start"}, []string{
			`baseline target case "main concurrency=1" was not carried out: server did not start`,
			`baseline target case "main concurrency=1" was not carried out: server did not start`}},
		{"reference lacks the phase", abCase("main", 1, fast...), []string{
			"", // compared: fast against slow
			`baseline target case "main concurrency=1" has no measured phase named "steady"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := abScenario([]string{"pr"}, ths...)
			cand := abCase("pr", 1, slow...)
			// The narrowed rule finds its phase in the candidate only.
			cand.Phases[0].Name = "steady"
			vs := judgeAB(t, sc, JudgeOptions{}, tc.ref, cand)
			vs = vs[len(vs)-3:] // the candidate's
			for i, want := range tc.reason {
				v := vs[i]
				if want == "" {
					if v.Status != results.StatusFail {
						t.Errorf("%s: %s %q, want fail", v.Rule, v.Status, v.Reason)
					}
					continue
				}
				if v.Status != results.StatusSkip || v.Reason != want || v.BaselineTarget != "main" || v.Fails() {
					t.Errorf("%s: %s %q (baseline target %q), want skip %q", v.Rule, v.Status, v.Reason, v.BaselineTarget, want)
				}
			}
			if vs[2].Status != results.StatusPass || vs[2].BaselineTarget != "" {
				t.Errorf("plain rule: %s, baseline target %q", vs[2].Status, vs[2].BaselineTarget)
			}
		})
	}
}

func TestSameJobABServerUsage(t *testing.T) {
	// Two builds of a server, each monitored: the candidate's memory is
	// judged against the reference's in the same run.
	sc := abScenario([]string{"pr"}, at(2, 5, "server.rss_max < baseline.server.rss_max * 1.2"))
	main := withUsage(abCase("main", 1, fast...), &results.Usage{PID: 10, Samples: 5, RSSMax: 100 << 20})
	pr := withUsage(abCase("pr", 1, fast2...), &results.Usage{PID: 11, Samples: 5, RSSMax: 130 << 20})
	vs := judgeAB(t, sc, JudgeOptions{}, main, pr)
	want := brief{Case: "pr concurrency=1", Rule: sc.Thresholds[0].Rule, Status: results.StatusFail,
		Actual: "server.rss_max = 130MiB, baseline.server.rss_max = 100MiB"}
	if diff := cmp.Diff(want, briefs(vs)[1]); diff != "" {
		t.Errorf("candidate (-want +got):\n%s", diff)
	}
}
