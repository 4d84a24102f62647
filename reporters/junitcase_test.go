package reporters

import (
	"bytes"
	"encoding/xml"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// junitDoc is the document read back as a CI reporter reads it.
type junitDoc struct {
	Suites []struct {
		Name  string  `xml:"name,attr"`
		Time  float64 `xml:"time,attr"`
		Cases []struct {
			Name      string  `xml:"name,attr"`
			Classname string  `xml:"classname,attr"`
			Time      float64 `xml:"time,attr"`
			File      *string `xml:"file,attr"`
			Line      *int    `xml:"line,attr"`
			Skipped   *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Error *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"error"`
			Failure *struct {
				Type string `xml:"type,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, o JUnitOptions, run *results.Run) (junitDoc, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := o.Write(&b, run); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, b.Bytes()
}

// dottedRun has a scenario and a target whose names hold dots, and a
// target named like a Go file of this repository.
func dottedRun() *results.Run {
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	sc := &scenarios.Scenario{Name: "shop.v2", File: "perf/shop.v2.yaml"}
	cases := []*results.CaseResult{{ID: "api.v2", Target: "api.v2"}, {ID: "main", Target: "main"}}
	var verdicts []results.Verdict
	for _, c := range cases {
		for i, rule := range []string{"p99 < 50ms", "rps > 100", "error_rate == 0", "cpu < 90%"} {
			verdicts = append(verdicts, results.Verdict{
				Case: c.ID, Target: c.Target, Name: rule, Rule: rule, Status: results.StatusPass,
				Severity: scenarios.SeverityFail, Pos: scenarios.Pos{File: sc.File, Line: 20 + i, Col: 5},
			})
		}
	}
	run := results.NewRun(results.Meta{}, []results.ScenarioInput{{
		Scenario: sc,
		Result:   &results.ScenarioResult{Scenario: sc, Start: start, End: start.Add(5 * time.Second), Cases: cases},
		Verdicts: verdicts,
	}})
	// Measured 3 s and 1 s of the scenario's 5 s.
	run.Scenarios[0].Cases[0].Stats.Elapsed = 3 * time.Second
	run.Scenarios[0].Cases[1].Stats.Elapsed = time.Second
	return run
}

// TestJUnitTimesAddUp checks what JUnit readers compute: the testcases'
// times add up to their suite's time, which is the scenario's wall time,
// and each case's time is counted once.
func TestJUnitTimesAddUp(t *testing.T) {
	runs := map[string]*results.Run{
		"fixture":  fixtureRun(),
		"capacity": capacityRun(),
		"dotted":   dottedRun(),
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			doc, _ := readJUnit(t, JUnitOptions{}, run)
			if len(doc.Suites) != len(run.Scenarios) {
				t.Fatalf("%d suites for %d scenarios", len(doc.Suites), len(run.Scenarios))
			}
			for i, s := range doc.Suites {
				sr := run.Scenarios[i]
				wall := sr.End.Sub(sr.Start).Seconds()
				if math.Abs(s.Time-wall) > 0.0005 {
					t.Errorf("%s: suite time %.3f, scenario wall time %.3f", s.Name, s.Time, wall)
				}
				var sum float64
				timed := map[string]int{}
				for _, c := range s.Cases {
					sum += c.Time
					if c.Time > 0 {
						timed[c.Classname+" "+strings.SplitN(c.Name, "]", 2)[0]]++
					}
				}
				if len(s.Cases) > 0 && math.Abs(sum-s.Time) > 0.0005 {
					t.Errorf("%s: testcases add up to %.3f s, suite time %.3f s", s.Name, sum, s.Time)
				}
				for k, n := range timed {
					if n > 1 {
						t.Errorf("%s: case %s has time on %d testcases, want one", s.Name, k, n)
					}
				}
			}
		})
	}
}

func TestJUnitSetTimes(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		wall     time.Duration
		caseOf   []string
		measured map[string]time.Duration
		want     []string
		suite    string
	}{
		{"a 3 s case judged by four thresholds is 3 s", 3 * time.Second,
			[]string{"a", "a", "a", "a"}, map[string]time.Duration{"a": 3 * time.Second},
			[]string{"3.000", "0.000", "0.000", "0.000"}, "3.000"},
		{"warm-up and start-up shared in proportion", 10 * time.Second,
			[]string{"", "a", "a", "b"}, map[string]time.Duration{"a": 3 * time.Second, "b": time.Second},
			[]string{"0.000", "7.500", "0.000", "2.500"}, "10.000"},
		{"thirds still add up", time.Second,
			[]string{"a", "b", "c"}, map[string]time.Duration{"a": ms, "b": ms, "c": ms},
			[]string{"0.333", "0.334", "0.333"}, "1.000"},
		{"nothing measured: the first testcase carries the time", 2 * time.Second,
			[]string{"", "a"}, map[string]time.Duration{},
			[]string{"2.000", "0.000"}, "2.000"},
		{"no wall time: the measured time", 0,
			[]string{"a", "b"}, map[string]time.Duration{"a": 1500 * ms, "b": 500 * ms},
			[]string{"1.500", "0.500"}, "2.000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := junitSuite{Cases: make([]junitCase, len(tt.caseOf))}
			junitSetTimes(&s, tt.wall, tt.caseOf, tt.measured)
			var got []string
			for _, c := range s.Cases {
				got = append(got, c.Time)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || s.Time != tt.suite {
				t.Errorf("times (-want +got):\n%s\nsuite %s, want %s", diff, s.Time, tt.suite)
			}
		})
	}
}

// TestJUnitClassnameIsNoFile applies mikepenz/action-junit-report's rule
// (src/testParser.ts, resolveFileAndLine): without a file attribute, the
// file it looks for is the classname's last dot-separated segment.
func TestJUnitClassnameIsNoFile(t *testing.T) {
	for name, run := range map[string]*results.Run{"fixture": fixtureRun(), "dotted": dottedRun()} {
		doc, _ := readJUnit(t, JUnitOptions{}, run)
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				guess := c.Classname[strings.LastIndex(c.Classname, ".")+1:]
				if guess != c.Classname || !strings.Contains(c.Classname, " › ") ||
					!strings.Contains(c.Classname, strings.ReplaceAll(s.Name, ".", "\u2024")) {
					t.Errorf("%s: classname %q (a reader would look for a file %q.*)", name, c.Classname, guess)
				}
			}
		}
	}
	doc, _ := readJUnit(t, JUnitOptions{}, dottedRun())
	if got := doc.Suites[0].Cases[0].Classname; got != "shop\u2024v2 › api\u2024v2" {
		t.Errorf("classname %q, want the names with dot leaders", got)
	}
}

// TestJUnitVerdictKinds checks that nothing but a pass reads as a pass.
func TestJUnitVerdictKinds(t *testing.T) {
	pos := scenarios.Pos{File: "perf.yaml", Line: 12, Col: 7}
	v := func(status results.Status, sev scenarios.Severity, actual, reason string) results.Verdict {
		return results.Verdict{Case: "c", Target: "t", Name: "p99 < 50ms", Rule: "p99 < 50ms",
			Status: status, Severity: sev, Actual: actual, Reason: reason, Pos: pos}
	}
	tests := []struct {
		name    string
		verdict results.Verdict
		want    string // child element: type or message
	}{
		{"pass", v(results.StatusPass, scenarios.SeverityFail, "p99 = 40ms", ""), ""},
		{"fail", v(results.StatusFail, scenarios.SeverityFail, "p99 = 62ms", ""), "failure threshold"},
		{"warn", v(results.StatusFail, scenarios.SeverityWarn, "p99 = 62ms", ""), "skipped warn: p99 < 50ms: p99 = 62ms (perf.yaml:12)"},
		{"warn-level rule error", v(results.StatusError, scenarios.SeverityWarn, "", "case was not carried out"),
			"skipped warn: p99 < 50ms: error: case was not carried out (perf.yaml:12)"},
		{"rule error", v(results.StatusError, scenarios.SeverityFail, "", "case was not carried out"), "error rule"},
		{"skip", v(results.StatusSkip, scenarios.SeverityFail, "", "no baseline loaded"), "skipped no baseline loaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc, _ := junitVerdict("s", tt.verdict)
			got := ""
			switch {
			case tc.Failure != nil:
				got = "failure " + tc.Failure.Type
			case tc.Error != nil:
				got = "error " + tc.Error.Type
			case tc.Skipped != nil:
				got = "skipped " + tc.Skipped.Message
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	interrupted := fixtureRun()
	interrupted.Interrupted = true
	doc, _ := readJUnit(t, JUnitOptions{}, interrupted)
	for _, s := range doc.Suites {
		if c := s.Cases[0]; c.Error == nil || c.Error.Type != "interrupted" {
			t.Errorf("%s: first testcase %q is no interrupted error", s.Name, c.Name)
		}
	}
}

// TestJUnitSourceAttrs checks that --junit-source-attrs points every
// threshold's testcase at its rule's line and every other testcase at the
// scenario file, and that nothing of the kind is written without it.
func TestJUnitSourceAttrs(t *testing.T) {
	for _, o := range []JUnitOptions{{}, {SourceAttrs: true}} {
		doc, data := readJUnit(t, o, fixtureRun())
		for i, s := range doc.Suites {
			sr := fixtureRun().Scenarios[i]
			lines := map[string]int{}
			for _, c := range sr.Cases {
				for _, v := range c.Verdicts {
					lines["["+c.ID+"] "+v.Name] = v.Pos.Line
				}
			}
			for _, c := range s.Cases {
				if !o.SourceAttrs {
					if c.File != nil || c.Line != nil {
						t.Errorf("%s: file/line written without SourceAttrs", c.Name)
					}
					continue
				}
				if c.File == nil || *c.File != sr.File {
					t.Errorf("%s: file %v, want %q", c.Name, c.File, sr.File)
				}
				want, isVerdict := lines[c.Name]
				switch {
				case isVerdict && (c.Line == nil || *c.Line != want):
					t.Errorf("%s: line %v, want %d", c.Name, c.Line, want)
				case !isVerdict && c.Line != nil:
					t.Errorf("%s: line %d on a testcase that is no threshold", c.Name, *c.Line)
				}
			}
		}
		if o.SourceAttrs && !bytes.Contains(data, []byte(`file="testdata/hello.yaml" line="31"`)) {
			t.Errorf("no file/line attributes in:\n%.2000s", data)
		}
	}
}

// TestJUnitSourceAttrsBreakTheSchema is why the attributes are off by
// default: the strict Ant schema rejects them.
func TestJUnitSourceAttrsBreakTheSchema(t *testing.T) {
	lint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed")
	}
	_, data := readJUnit(t, JUnitOptions{SourceAttrs: true}, fixtureRun())
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lint, "--noout", "--schema", junitXSD, path).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "attribute 'file'") {
		t.Errorf("xmllint accepts file/line attributes (%v):\n%s", err, out)
	}
}

// TestFileSetJUnitOptions checks that the junit.xml of an output directory
// is written with the set's options.
func TestFileSetJUnitOptions(t *testing.T) {
	dir := t.TempDir()
	set := FileSet{JUnit: JUnitOptions{SourceAttrs: true}}
	set.AddAll(dir, fixtureRun())
	if err := set.Commit(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, JUnitFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`file="testdata/hello.yaml" line="31"`)) {
		t.Errorf("junit.xml has no file/line attributes")
	}
}
