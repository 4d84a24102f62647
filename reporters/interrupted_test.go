package reporters

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/results"
)

// interruptedRuns are the ways a run can be stopped: before any scenario
// began, in the middle of one (the scenario is marked), and after one
// finished while the run as a whole was stopped.
func interruptedRuns() map[string]*results.Run {
	mid := fixtureRun()
	mid.Scenarios[0].Interrupted = true
	whole := fixtureRun()
	whole.Interrupted = true
	return map[string]*results.Run{
		"before any scenario": results.NewRun(results.Meta{Interrupted: true}, nil),
		"in a scenario": results.NewRun(results.Meta{Interrupted: true}, []results.ScenarioInput{{
			Result: &results.ScenarioResult{Interrupted: true, Cases: []*results.CaseResult{{ID: "c", Target: "t"}}},
		}}),
		"scenario marked":  mid,
		"whole run marked": whole,
	}
}

func TestInterruptedRunIsNeverPassed(t *testing.T) {
	for name, run := range interruptedRuns() {
		t.Run(name, func(t *testing.T) {
			if name != "scenario marked" && run.Passed {
				t.Error("results.json says passed")
			}
			var js bytes.Buffer
			if err := results.WriteJSON(&js, run); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Passed      *bool `json:"passed"`
				Interrupted bool  `json:"interrupted"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if run.Interrupted && (doc.Passed == nil || *doc.Passed || !doc.Interrupted) {
				t.Errorf("results.json: passed %v, interrupted %v; want false, true", doc.Passed, doc.Interrupted)
			}

			var md bytes.Buffer
			if err := WriteMarkdown(&md, run); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(md.String(), "passed (interrupted)") || strings.HasPrefix(md.String(), "## ✅") {
				t.Errorf("summary.md headline reads as a pass:\n%.200s", md.String())
			}
			if run.Interrupted && !strings.HasPrefix(md.String(), "## ⏹ loadgate: interrupted — not judged\n") {
				t.Errorf("summary.md headline:\n%.200s", md.String())
			}

			var jx bytes.Buffer
			if err := WriteJUnit(&jx, run); err != nil {
				t.Fatal(err)
			}
			var suites junitSuites
			if err := xml.Unmarshal(jx.Bytes(), &suites); err != nil {
				t.Fatal(err)
			}
			found := 0
			for _, s := range suites.Suites {
				for _, tc := range s.Cases {
					if tc.Name == junitInterruptedCase && tc.Error != nil &&
						tc.Error.Type == "interrupted" && tc.Error.Message == "run interrupted: partial results" {
						found++
						if s.Errors == 0 {
							t.Errorf("suite %q counts no error", s.Name)
						}
					}
				}
			}
			if found == 0 {
				t.Errorf("JUnit has no interrupted <error>:\n%s", jx.String())
			}
			xmllint(t, jx.Bytes())
		})
	}
}

func TestConsoleSaysInterruptedNotPassed(t *testing.T) {
	var b bytes.Buffer
	c := NewConsole(&b, ConsoleOptions{})
	res, verdicts := fixtureResult()
	res.Interrupted = true
	c.Summary(res, verdicts)
	if !strings.Contains(b.String(), "⏹ INTERRUPTED — not judged") {
		t.Errorf("console summary does not say the run was not judged:\n%s", b.String())
	}
}

func TestInterruptedRunIsNoBaseline(t *testing.T) {
	dir := t.TempDir()
	good := fixtureRun()
	bad := fixtureRun()
	bad.Interrupted = true
	write := func(name string, run *results.Run) string {
		path := filepath.Join(dir, name)
		var b bytes.Buffer
		if err := results.WriteJSON(&b, run); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("a-good.json", good)
	badPath := write("b-interrupted.json", bad)
	for _, path := range []string{badPath, dir} {
		_, err := results.LoadBaseline(path)
		if !errors.Is(err, results.ErrInterrupted) {
			t.Fatalf("LoadBaseline(%s) = %v, want an interrupted refusal", path, err)
		}
		if want := badPath + ": the run was interrupted; an interrupted run cannot be a baseline"; err.Error() != want {
			t.Errorf("LoadBaseline(%s):\n got %q\nwant %q", path, err, want)
		}
	}
}
