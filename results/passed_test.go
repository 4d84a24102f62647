package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// TestReadRunRefusesAContradictedPassed: a document whose written "passed"
// is not what its verdicts and figures derive is refused, naming the
// field that contradicts it; one that agrees, or claims nothing, is read.
func TestReadRunRefusesAContradictedPassed(t *testing.T) {
	verdict := func(c, name string, st Status, sev scenarios.Severity) Verdict {
		return Verdict{Case: c, Target: c, Name: name, Rule: name, Severity: sev, Status: st}
	}
	pass := verdict("a", "p99 < 5s", StatusPass, scenarios.SeverityFail)
	fail := func(c, name string) Verdict {
		return verdict(c, name, StatusFail, scenarios.SeverityFail)
	}
	saturated := &PhaseResult{Name: "m", Rate: &scenarios.Rate{From: 2e6, To: 2e6}, Elapsed: 2 * time.Second,
		Counters: Counters{Requests: 28530, Succeeded: 28530}, Dropped: 3999049 - 28530,
		Generator: Generator{CPU: 0.17, Saturated: true, Reason: "the scheduler ran 116ms late (p99)"}}

	tests := []struct {
		name  string
		edit  func(*Run) // the document's contents
		claim string     // the written "passed": true, false, null or "" for none
		want  string     // in the refusal; "" = read, and Passed as derived
	}{
		{"a pass that says so", func(*Run) {}, "true", ""},
		{"a pass that claims nothing", func(*Run) {}, "", ""},
		{"a pass with a null claim", func(*Run) {}, "null", ""},
		{"a failure that says so", func(r *Run) { r.Scenarios[0].Cases[0].Verdicts = []Verdict{fail("a", "p99 < 50ms")} }, "false", ""},
		{"a warning fails nothing", func(r *Run) {
			r.Scenarios[0].Cases[0].Verdicts = []Verdict{verdict("a", "p999 < 1ms", StatusFail, scenarios.SeverityWarn)}
		}, "true", ""},
		{"a pass written as a failure", func(*Run) {}, "false",
			`"passed": false contradicts the document: no verdict fails the run, and it was neither interrupted, aborted, invalid nor in error`},
		{"failed verdicts", func(r *Run) {
			r.Scenarios[0].Cases[0].Verdicts = []Verdict{pass, fail("a", "p99 < 50ms"), verdict("a", "p999 < 1ms", StatusFail, scenarios.SeverityWarn)}
			r.Scenarios[0].Verdicts = []Verdict{fail("b", "rps > 10")}
		}, "true", `"passed": true contradicts its verdicts (2 failed: case "a" p99 < 50ms, case "b" rps > 10)`},
		{"more failed verdicts than are named", func(r *Run) {
			r.Scenarios[0].Cases[0].Verdicts = []Verdict{fail("a", "r1"), fail("a", "r2"), fail("a", "r3"), fail("a", "r4")}
		}, "true", `contradicts its verdicts (4 failed: case "a" r1, case "a" r2, case "a" r3, …)`},
		{"a rule error", func(r *Run) {
			r.Scenarios[0].Cases[0].Verdicts = []Verdict{verdict("a", "x.y > 1", StatusError, scenarios.SeverityFail)}
		}, "true", `contradicts its verdicts (1 failed: case "a" x.y > 1)`},
		{"inconclusive under --fail-on-inconclusive", func(r *Run) {
			v := verdict("a", `!regressed("rps", 5%)`, StatusInconclusive, scenarios.SeverityFail)
			v.FailOnInconclusive = true
			r.Scenarios[0].Cases[0].Verdicts = []Verdict{v}
		}, "true", `contradicts its verdicts (1 failed: case "a" !regressed("rps", 5%))`},
		{"interrupted", func(r *Run) { r.Interrupted = true }, "true", `"passed": true contradicts "interrupted": true`},
		{"a scenario interrupted", func(r *Run) { r.Scenarios[0].Interrupted = true }, "true", `"passed": true contradicts "interrupted": true`},
		{"aborted", func(r *Run) {
			r.Scenarios[0].Aborted = &Aborted{Case: "a", Phase: "m", Name: "error_rate > 0.5", Rule: "error_rate > 0.5", At: 1500 * time.Millisecond}
		}, "true", `"passed": true contradicts the "aborted" of scenario "s" (abort rule "error_rate > 0.5" stopped case "a" at 1.5s)`},
		{"a case error", func(r *Run) { r.Scenarios[0].Cases[0].Error = "no request completed" }, "true",
			`"passed": true contradicts the "error" of case "a" (no request completed)`},
		{"errors of a scenario and a case", func(r *Run) {
			r.Scenarios[0].Error = "server exited"
			r.Scenarios[0].Cases[0].Error = "no request completed"
		}, "true", `"passed": true contradicts the "error" of scenario "s" (server exited) and 1 more error`},
		{"invalid", func(r *Run) { r.Scenarios[0].Cases[0].Phases = []*PhaseResult{saturated} }, "true",
			`"passed": true contradicts its figures, which make the run invalid (s / a: phase m: the generator sent 0.7 % of the requested 2,000,000/s`},
		{"a baseline of another environment under --strict-env", func(r *Run) {
			r.Baseline = &BaselineInfo{File: "base.json", FingerprintMatch: false, StrictEnv: true}
		}, "true", `"passed": true contradicts its "baseline", measured in a different environment under "strict_env": true`},
		{"several reasons", func(r *Run) {
			r.Interrupted = true
			r.Scenarios[0].Cases[0].Error = "no request completed"
			r.Scenarios[0].Cases[0].Verdicts = []Verdict{fail("a", "p99 < 50ms")}
		}, "true", `"passed": true contradicts "interrupted": true, the "error" of case "a" (no request completed) and its verdicts (1 failed: case "a" p99 < 50ms)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &Run{Schema: Schema, Scenarios: []*ScenarioRun{{Name: "s", Cases: []*CaseRun{
				{ID: "a", Target: "a", Phases: []*PhaseResult{}, Verdicts: []Verdict{pass}},
			}}}}
			tt.edit(run)
			doc := withPassed(t, run, tt.claim)
			got, err := ReadRun(bytes.NewReader(doc))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v\n%s", err, doc)
				}
				if claimed := tt.claim == "true"; tt.claim != "" && tt.claim != "null" && got.Passed != claimed {
					t.Errorf("Passed = %v, the document says %s", got.Passed, tt.claim)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant one containing %s", err, tt.want)
			}
			if !errors.Is(err, ErrPassedContradicts) {
				t.Errorf("err %v does not wrap ErrPassedContradicts", err)
			}
		})
	}
}

// withPassed writes run as results.json with its "passed" replaced by
// claim, or left out when claim is "".
func withPassed(t *testing.T, run *Run, claim string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, run); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "passed")
	if claim != "" {
		doc["passed"] = json.RawMessage(claim)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
