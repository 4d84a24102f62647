package reporters

import (
	"bytes"
	"encoding/xml"
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

// junitXSD is the Apache Ant JUnit schema (Windy Road, Apache License 2.0;
// see its header), kept in the repository so that any checkout can run
// this test.
var junitXSD = filepath.Join("testdata", "JUnit.xsd")

// xmllint validates doc against the JUnit schema. Missing tools skip the
// check on a workstation but fail it in CI, where a silent skip would hide
// an invalid report.
func xmllint(t *testing.T, doc []byte) {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot validate JUnit XML: %s", what)
		}
		t.Skipf("cannot validate JUnit XML: %s", what)
	}
	lint, err := exec.LookPath("xmllint")
	if err != nil {
		missing("xmllint not installed (apt-get install libxml2-utils)")
	}
	if _, err := os.Stat(junitXSD); err != nil {
		t.Fatalf("the JUnit schema is part of the repository: %v", err)
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lint, "--noout", "--schema", junitXSD, path).CombinedOutput()
	if err != nil {
		t.Errorf("xmllint rejects the JUnit XML: %v\n%s", err, out)
	}
}

func TestWriteJUnitGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "junit.golden.xml", b.Bytes())
	xmllint(t, b.Bytes())
}

func TestWriteJUnitValidEdgeCases(t *testing.T) {
	interrupted := fixtureRun()
	interrupted.Interrupted = true
	runs := map[string]*results.Run{
		"no scenarios": results.NewRun(results.Meta{}, nil),
		"nothing known": results.NewRun(results.Meta{}, []results.ScenarioInput{{
			Result: &results.ScenarioResult{Cases: []*results.CaseResult{{ID: "x", Err: "no request completed"}}},
		}}),
		"interrupted": interrupted,
		"awkward text": results.NewRun(results.Meta{Host: results.Host{Hostname: " "}}, []results.ScenarioInput{{
			Scenario: &scenarios.Scenario{Name: "a  b\n<c>"},
			Result:   &results.ScenarioResult{Cases: []*results.CaseResult{{ID: "t  k=\"v\"", Target: "t"}}},
			Verdicts: []results.Verdict{{
				Case: "t  k=\"v\"", Target: "t", Name: "a & b", Rule: "p99 < 5ms && rps > 1\x00",
				Status: results.StatusFail, Severity: scenarios.SeverityFail, Actual: "p99 = 6ms",
			}},
		}}),
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteJUnit(&b, run); err != nil {
				t.Fatal(err)
			}
			xmllint(t, b.Bytes())
		})
	}
}

// TestWriteJUnitCounts reads the document back the way a CI reporter does.
func TestWriteJUnitCounts(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name      string `xml:"name,attr"`
			Tests     int    `xml:"tests,attr"`
			Failures  int    `xml:"failures,attr"`
			Errors    int    `xml:"errors,attr"`
			Skipped   int    `xml:"skipped,attr"`
			Timestamp string `xml:"timestamp,attr"`
			Cases     []struct {
				Name      string    `xml:"name,attr"`
				Classname string    `xml:"classname,attr"`
				Failure   *struct{} `xml:"failure"`
			} `xml:"testcase"`
			SystemOut string `xml:"system-out"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 4 {
		t.Fatalf("%d suites, want 4", len(doc.Suites))
	}
	hello := doc.Suites[0]
	// 6 cases × 4 thresholds + 3 close cases × 1 narrowed threshold.
	// The warn-level failure is the seventh skipped testcase.
	if hello.Tests != 27 || hello.Failures != 2 || hello.Errors != 3 || hello.Skipped != 7 {
		t.Errorf("hello-http: tests=%d failures=%d errors=%d skipped=%d, want 27/2/3/7",
			hello.Tests, hello.Failures, hello.Errors, hello.Skipped)
	}
	if _, err := time.Parse(junitTime, hello.Timestamp); err != nil {
		t.Errorf("timestamp %q: %v", hello.Timestamp, err)
	}
	first := hello.Cases[0]
	if first.Name != "[keepalive concurrency=1] rps >= 5000" || first.Classname != "hello-http › keepalive" || first.Failure == nil {
		t.Errorf("first testcase = %+v", first)
	}
	// The memory rule fails at warn level on one case: skipped, and noted.
	if !strings.Contains(hello.SystemOut, "WARN [close concurrency=100] memory") {
		t.Errorf("system-out lacks the warn note:\n%s", hello.SystemOut)
	}
	slo := doc.Suites[1]
	// 2 cases × 2 thresholds + 2 narrowed to one target each; the
	// open-model case dropped arrivals and sent late.
	if slo.Tests != 6 || slo.Failures != 2 || slo.Errors != 0 || slo.Skipped != 0 {
		t.Errorf("hello-slo: tests=%d failures=%d errors=%d skipped=%d, want 6/2/0/0",
			slo.Tests, slo.Failures, slo.Errors, slo.Skipped)
	}
	agent := doc.Suites[2]
	if agent.Tests != 1 || agent.Errors != 1 {
		t.Errorf("tcp-agent: tests=%d errors=%d, want one error", agent.Tests, agent.Errors)
	}
	// The flow's step and iteration rules pass; its extract errors fail
	// errors.extract == 0.
	shop := doc.Suites[3]
	if shop.Tests != 3 || shop.Failures != 1 || shop.Errors != 0 || shop.Skipped != 0 {
		t.Errorf("shop-api: tests=%d failures=%d errors=%d skipped=%d, want 3/1/0/0",
			shop.Tests, shop.Failures, shop.Errors, shop.Skipped)
	}
}

// TestWriteJUnitLoadModelProperties checks that dropped and rps_cv appear
// on exactly the cases they describe: a 0 for a closed-model case would
// read as "nothing dropped" where nothing could be.
func TestWriteJUnitLoadModelProperties(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range doc.Suites {
		for _, p := range s.Properties {
			if strings.HasSuffix(p.Name, ".dropped") || strings.HasSuffix(p.Name, ".rps_cv") {
				got[p.Name] = p.Value
			}
		}
	}
	want := map[string]string{"paced.dropped": "111", "repeated.rps_cv": "0.0260"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("load-model properties (-want +got):\n%s", diff)
	}
}
