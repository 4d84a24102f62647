package reporters

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// hostile is text an attacker controls through a scenario, a matrix value
// or a server's reply: HTML, a backtick, a pipe and terminal controls.
const hostile = "<img src=x onerror=alert(1)> `tick` a|b \x1b[2J\a\x00"

// hostileRun is a run whose every user-controlled text is hostile.
func hostileRun() (*results.Run, *results.ScenarioResult, []results.Verdict) {
	sc := &scenarios.Scenario{File: "x`y|z.yaml", Name: "scn " + hostile, Description: "# " + hostile}
	spec := caseSpec{target: "t" + hostile, concurrency: 10, rps: 100, base: 1e6}
	ok := &results.CaseResult{
		ID:     "case " + hostile,
		Target: spec.target,
		Matrix: []scenarios.MatrixValue{{Key: "m", Text: hostile, Value: hostile}},
		Phases: []*results.PhaseResult{fixturePhase(spec, "phase "+hostile, false, t0, 3, 100)},
	}
	// A flow whose step name is hostile: it appears in every report's rows.
	p := ok.Phases[0]
	step := &results.NamedResult{Name: "step " + hostile, Counters: p.Counters, Latency: p.Latency}
	p.ByName = []*results.NamedResult{step}
	p.Iterations = &results.IterationResult{Iterations: p.Requests, Succeeded: p.Succeeded, Failed: p.Failed, Latency: p.Latency}
	broken := &results.CaseResult{ID: "broken", Target: spec.target, Err: "server log tail:\n" + hostile}
	res := &results.ScenarioResult{Scenario: sc, Start: t0, End: t0.Add(3e9), Cases: []*results.CaseResult{ok, broken}}
	verdicts := []results.Verdict{{
		Case: ok.ID, Target: ok.Target, Name: "name " + hostile, Rule: "rps > 1 || p99 < 5ms `x`",
		Status: results.StatusFail, Severity: scenarios.SeverityFail, Actual: "actual " + hostile,
		Pos: scenarios.Pos{File: sc.File, Line: 3, Col: 5},
	}}
	run := results.NewRun(fixtureMeta(), []results.ScenarioInput{{Result: res, Verdicts: verdicts, Err: errors.New("scenario error " + hostile)}})
	return run, res, verdicts
}

func assertNoRaw(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\a\x00") {
		t.Errorf("%s carries a raw control character", what)
	}
}

func TestReportsEscapeHostileText(t *testing.T) {
	run, res, verdicts := hostileRun()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(md.String(), "\n") {
		// Outside code spans no raw '<' may remain; code spans show it
		// literally, so strip them before looking.
		if strings.Contains(stripCodeSpans(line), "<img") {
			t.Errorf("summary.md renders HTML: %q", line)
		}
	}
	assertNoRaw(t, "summary.md", md.String())
	golden(t, "hostile.golden.md", md.Bytes())

	var con bytes.Buffer
	c := NewConsole(&con, ConsoleOptions{})
	c.Summary(res, verdicts)
	assertNoRaw(t, "console", con.String())
	golden(t, "hostile-console.golden.txt", con.Bytes())
	if !strings.Contains(md.String(), "| ``step <img") || !strings.Contains(con.String(), "  step <img src=x onerror=alert(1)> `tick` a|b \\x1b[2J\\x07\\x00       300") {
		t.Error("the hostile step's row is missing")
	}

	var junit bytes.Buffer
	if err := WriteJUnit(&junit, run); err != nil {
		t.Fatal(err)
	}
	assertNoRaw(t, "junit", junit.String())
	xmllint(t, junit.Bytes())

	cmp, err := assertions.Compare(run, run, assertions.CompareOptions{Tolerance: 0.05, BaseName: "a|" + hostile, NewName: "b"})
	if err != nil {
		t.Fatal(err)
	}
	var cb bytes.Buffer
	if err := WriteCompare(&cb, cmp); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(cb.String(), "\n") {
		if strings.Contains(stripCodeSpans(line), "<img") {
			t.Errorf("compare renders HTML: %q", line)
		}
	}
	assertNoRaw(t, "compare", cb.String())
}

// stripCodeSpans drops the code spans of one line of mdCode output.
func stripCodeSpans(line string) string {
	var out strings.Builder
	for line != "" {
		n := len(line) - len(strings.TrimLeft(line, "`"))
		if n == 0 {
			out.WriteByte(line[0])
			line = line[1:]
			continue
		}
		fence := line[:n]
		end := strings.Index(line[n:], fence)
		if end < 0 {
			out.WriteString(line)
			break
		}
		line = line[n+end+n:]
	}
	return out.String()
}
