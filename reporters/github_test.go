package reporters

import (
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestInconclusiveVerdictsAnnotateAsWarnings(t *testing.T) {
	run := &results.Run{Scenarios: []*results.ScenarioRun{{Name: "gate", Cases: []*results.CaseRun{{
		ID: "hello", Target: "hello",
		Verdicts: []results.Verdict{{
			Case: "hello", Target: "hello", Name: "rps holds", Rule: `!regressed("rps", 5%)`, Severity: "fail",
			Status: results.StatusInconclusive, Actual: "rps = 900 (baseline 1000)",
			Reason: "rps 10.0% lower, beyond the 5.0% tolerance but not significant (p = 0.100 ≥ 0.05, 3 vs 3 trials)",
			Pos:    scenarios.Pos{File: "s.yaml", Line: 12, Col: 5},
		}},
	}}}}}
	var b strings.Builder
	WriteAnnotations(&b, run, nil)
	want := "::warning file=s.yaml,line=12,col=5,title=gate%3A rps holds::[hello] !regressed(\"rps\", 5%25) is inconclusive: rps = 900 (baseline 1000) (rps 10.0%25 lower"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("got  %s\nwant %s…", b.String(), want)
	}
	run.Scenarios[0].Cases[0].Verdicts[0].FailOnInconclusive = true
	run.Baseline = &results.BaselineInfo{File: "base.json", Differences: []string{`cores: baseline 4, this run 8`}}
	b.Reset()
	WriteAnnotations(&b, run, nil)
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 2 || lines[0] != "::warning title=loadgate%3A baseline from a different environment::base.json: cores: baseline 4, this run 8" ||
		!strings.HasPrefix(lines[1], "::error ") {
		t.Errorf("--fail-on-inconclusive and another environment:\n%s", b.String())
	}
}

func TestAbortedRunAnnotatesTheRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		verdicts []results.Verdict
		want     string
	}{
		{"on the rule's line", []results.Verdict{{
			Case: "checkout", Name: "p99 < 50ms", Rule: "p99 < 50ms", Status: results.StatusFail,
			Pos: scenarios.Pos{File: "abort.yaml", Line: 20, Col: 5},
		}}, "::error file=abort.yaml,line=20,col=5,title=loadgate%3A aborted — gate%3A p99 < 50ms::the load was stopped at 3.2s into phase measured of case checkout: p99 < 50ms failed over the last 10s: p99 = 812ms\n"},
		{"no verdict: the file", nil, "::error file=gate.yaml,title=loadgate%3A aborted — gate%3A p99 < 50ms::the load was stopped at 3.2s into phase measured of case checkout: p99 < 50ms failed over the last 10s: p99 = 812ms\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &results.Run{Scenarios: []*results.ScenarioRun{{Name: "gate", File: "gate.yaml",
				Aborted: &results.Aborted{Case: "checkout", Phase: "measured", Name: "p99 < 50ms", Rule: "p99 < 50ms",
					At: 3200 * time.Millisecond, Window: 10 * time.Second, Actual: "p99 = 812ms"},
				Cases: []*results.CaseRun{{ID: "checkout", Target: "checkout", Verdicts: nil}},
			}}}
			run.Scenarios[0].Verdicts = tc.verdicts
			var b strings.Builder
			WriteAnnotations(&b, run, nil)
			if !strings.HasPrefix(b.String(), tc.want) {
				t.Errorf("got  %q\nwant %q…", b.String(), tc.want)
			}
		})
	}
}

func TestWorkflowCommandEscaping(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50%", "50%25", "50%25"},
		{"a\nb\r", "a%0Ab%0D", "a%0Ab%0D"},
		{"file:1,2", "file:1,2", "file%3A1%2C2"},
	} {
		if got := escapeData(tc.in); got != tc.data {
			t.Errorf("escapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := escapeProperty(tc.in); got != tc.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

func TestWriteErrorAnnotation(t *testing.T) {
	tests := []struct {
		name, file string
		line, col  int
		msg, want  string
	}{
		{"a position", "perf/s.yaml", 7, 16, "timeout: must be greater than 0",
			"::error file=perf/s.yaml,line=7,col=16,title=T%3A x::timeout: must be greater than 0\n"},
		{"no column", "s.yaml", 3, 0, "m", "::error file=s.yaml,line=3,title=T%3A x::m\n"},
		{"a file only", "s.yaml", 0, 0, "m", "::error file=s.yaml,title=T%3A x::m\n"},
		// GitHub ignores a line without a file; none is written.
		{"no file", "", 3, 4, "m", "::error title=T%3A x::m\n"},
		// Properties escape , and : besides %, CR and LF; the message
		// keeps , and :, which cannot end it.
		{"properties escaped", "a,b:c%d.yaml", 1, 1, "50% of\r\nit: a, b",
			"::error file=a%2Cb%3Ac%25d.yaml,line=1,col=1,title=T%3A x::50%25 of%0D%0Ait: a, b\n"},
		{"no terminal escapes", "s.yaml", 1, 1, "bad \x1b[31mred", "::error file=s.yaml,line=1,col=1,title=T%3A x::bad \\x1b[31mred\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		WriteErrorAnnotation(&b, tt.file, tt.line, tt.col, "T: x", tt.msg)
		if b.String() != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, b.String(), tt.want)
		}
	}
}
