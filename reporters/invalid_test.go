package reporters

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// invalidRun is a flood: case "web" asked 2,000,000/s of a machine that
// sent 28,530 of 3,999,049 arrivals, with a late scheduler; case "calm"
// asked 100/s and sent all of it, with the engine calling its generator
// saturated anyway (a busy machine); stored verdicts say "pass", as an
// older loadgate wrote them.
func invalidRun() *results.Run {
	phase := func(rate float64, sent, dropped int64, g results.Generator) *results.PhaseResult {
		return &results.PhaseResult{Name: "m", Rate: &scenarios.Rate{From: rate, To: rate}, Elapsed: 2 * time.Second,
			Counters: results.Counters{Requests: sent, Succeeded: sent}, Dropped: dropped, Generator: g,
			Latency: results.NewHistogram(), Connect: results.NewHistogram()}
	}
	late := results.Generator{CPU: 0.17, SchedLagP99: 116 * time.Millisecond, Saturated: true, Reason: "the scheduler ran 116ms late (p99)"}
	busy := results.Generator{CPU: 0.3, SchedLagP99: 18 * time.Millisecond, Saturated: true, Reason: "the scheduler ran 18ms late (p99)"}
	pass := func(c string) []results.Verdict {
		return []results.Verdict{{Case: c, Target: c, Name: "p99 < 1s", Rule: "p99 < 1s", Severity: "fail", Status: results.StatusPass, Actual: "p99 = 967ms"}}
	}
	run := &results.Run{Schema: results.Schema, Passed: false, Scenarios: []*results.ScenarioRun{{Name: "flood", Cases: []*results.CaseRun{
		{ID: "web", Target: "web", Phases: []*results.PhaseResult{phase(2e6, 28530, 3999049-28530, late)}, Verdicts: pass("web")},
		{ID: "calm", Target: "calm", Phases: []*results.PhaseResult{phase(100, 200, 0, busy)}, Verdicts: pass("calm")},
	}}}}
	var b bytes.Buffer
	if err := results.WriteJSON(&b, run); err != nil {
		panic(err)
	}
	read, err := results.ReadRun(&b)
	if err != nil {
		panic(err)
	}
	return read
}

func TestInvalidRunIsNotJudgedInAnyReport(t *testing.T) {
	run := invalidRun()
	if !run.Invalid() || run.Passed {
		t.Fatalf("Invalid() = %v, Passed = %v; want true, false (the stored flag is not trusted)", run.Invalid(), run.Passed)
	}
	why := "flood / web: phase m: the generator sent 0.7 % of the requested 2,000,000/s (28,530 of 3,999,049 due arrivals); the scheduler ran 116ms late (p99)"
	if got := run.InvalidReason(); got != why {
		t.Errorf("InvalidReason() = %q", got)
	}
	var md, junit, html, gh bytes.Buffer
	for _, err := range []error{WriteMarkdown(&md, run), WriteJUnit(&junit, run), WriteHTML(&html, run)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	WriteAnnotations(&gh, run, nil)
	for _, tc := range []struct {
		report, out string
		want        []string
		not         []string
	}{
		{"markdown", md.String(), []string{
			"## ⚠ loadgate: invalid — not judged\n",
			"> - flood / web: phase m: the generator sent 0.7 % of the requested 2,000,000/s",
			"| ⚠ | `web` | `p99 < 1s` | not judged: the run is invalid |",
			// The busy case sent its load: judged, with a note.
			"> ℹ️ flood / calm: phase m: the generator was busy (the scheduler ran 18ms late (p99)) but sent its load",
			"| ✅ | `calm` | `p99 < 1s` | p99 = 967ms |",
		}, []string{"loadgate: passed", "| ✅ | `web`"}},
		{"junit", junit.String(), []string{
			`<testcase name="load applied" classname="loadgate › flood"`,
			`<error message="invalid run — not judged: web: phase m: the generator sent 0.7 % of the requested 2,000,000/s`,
			`type="invalid">`,
			`<skipped message="invalid run — not judged: phase m: the generator sent 0.7 %`,
			`name="web.invalid"`,
		}, []string{`name="calm.invalid"`}},
		{"html", html.String(), []string{string(htmlMarks("⚠ loadgate: invalid — not judged")), string(htmlMarks("⚠ not judged"))}, []string{"loadgate: passed"}},
		{"annotations", gh.String(), []string{"::error title=loadgate%3A invalid — not judged::" + strings.ReplaceAll(why, "%", "%25")}, nil},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.out, w) {
				t.Errorf("%s lacks %q:\n%s", tc.report, w, tc.out)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(tc.out, w) {
				t.Errorf("%s has %q", tc.report, w)
			}
		}
	}
}

func TestValidRunIsNotInvalid(t *testing.T) {
	run := invalidRun()
	run.Scenarios[0].Cases = run.Scenarios[0].Cases[1:] // only the busy case that sent its load
	if run.Invalid() || results.RefuseInvalid(run, "a baseline") != nil {
		t.Errorf("a run that applied its load is invalid: %s", run.InvalidReason())
	}
	if err := results.RefuseInvalid(invalidRun(), "a baseline"); err == nil || !strings.Contains(err.Error(), "an invalid run cannot be a baseline") {
		t.Errorf("RefuseInvalid = %v", err)
	}
}
