package reporters

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestWriteMarkdownABGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, abRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "ab.golden.md", b.Bytes())
	md := b.String()
	for _, want := range []string{
		"#### A/B verdicts",
		"- ❌ `pr` against `main`: 4 passed · 1 failed · 1 warned",
		"| `pr concurrency=10` | `main concurrency=10` |",
		"❌ no p99 regression: p99 ",
		"⚠️ memory vs main: server.rss_max = 100MiB, baseline.server.rss_max = 80MiB",
		"| main CPU | main RSS max |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("A/B summary lacks %q", want)
		}
	}
	// main's own cases compare with nothing in this run.
	_, ab, _ := strings.Cut(md, "#### A/B verdicts")
	if strings.Contains(ab, "| `main concurrency=10` | `") {
		t.Error("the reference target is listed as a candidate")
	}
}

func TestWriteJUnitABValid(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, abRun()); err != nil {
		t.Fatal(err)
	}
	xmllint(t, b.Bytes())
	if !strings.Contains(b.String(), "baseline: target main, same run") {
		t.Errorf("the p99 failure does not say what it compared with:\n%s", b.String())
	}
}

// TestUsageColumns checks that usage appears where something was sampled
// and nowhere else: a server column of zeros for a host-only case would
// read as an idle server.
func TestUsageColumns(t *testing.T) {
	var md bytes.Buffer
	if err := WriteMarkdown(&md, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	hello, slo, _ := strings.Cut(md.String(), "### ❌ hello-slo")
	for _, want := range []string{
		"| server CPU mean / max | server CPU per request (µs) | server RSS max (MiB) | host load1 max |",
		"| keepalive CPU | keepalive RSS max |",
		`: server CPU"`, // a chart of the server's CPU per case
	} {
		if !strings.Contains(hello, want) {
			t.Errorf("hello-http lacks %q", want)
		}
	}
	if !strings.Contains(slo, "| host load1 max |") || strings.Contains(slo, "server CPU") || strings.Contains(slo, "server RSS") {
		t.Errorf("hello-slo, host only: server columns or no host column:\n%s", slo)
	}

	// Without usage, no column at all.
	bare := fixtureRun()
	for _, sr := range bare.Scenarios {
		for _, c := range sr.Cases {
			c.Server = nil
		}
	}
	var plain bytes.Buffer
	if err := WriteMarkdown(&plain, bare); err != nil {
		t.Fatal(err)
	}
	if s := plain.String(); strings.Contains(s, "server CPU") || strings.Contains(s, "host load1") || strings.Contains(s, "CPU |") {
		t.Error("usage columns without usage")
	}

	var junit bytes.Buffer
	if err := WriteJUnit(&junit, fixtureRun()); err != nil {
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
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range doc.Suites {
		for _, p := range s.Properties {
			if strings.Contains(p.Name, "server_") || strings.Contains(p.Name, "host_") {
				if strings.HasPrefix(p.Name, "keepalive concurrency=1.") || !strings.Contains(p.Name, "concurrency") {
					got[p.Name] = p.Value
				}
			}
		}
	}
	want := map[string]string{
		"keepalive concurrency=1.server_cpu_mean": "10.00",
		"keepalive concurrency=1.server_rss_max":  "94371840",
		"keepalive concurrency=1.host_load1_max":  "0.66",
		"paced.host_load1_max":                    "0.72",
		"repeated.host_load1_max":                 "2.41",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage properties (-want +got):\n%s", diff)
	}
}

func TestConsoleServerLine(t *testing.T) {
	out := consoleSummaries(t, ConsoleOptions{})
	for _, want := range []string{
		"Server: cpu mean 85.0% (max 102.0%), cpu per request 100.0 µs, rss max 200.0 MiB, host load1 max 2.64\n",
		"Host: load1 max 0.72, cpu mean 31.5% (no server process monitored)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	res, verdicts := abResult()
	var b bytes.Buffer
	NewConsole(&b, ConsoleOptions{}).Summary(res, verdicts)
	if !strings.Contains(b.String(), "Server pr: cpu mean 57.8% (max 72.2%), rss max 100.0 MiB, host load1 max 1.60\n") {
		t.Errorf("a target's server is not named:\n%s", b.String())
	}
}

// TestBaselineCarriesUsage judges server rules against a results file read
// back from disk, the way --baseline does.
func TestBaselineCarriesUsage(t *testing.T) {
	var doc bytes.Buffer
	if err := results.WriteJSON(&doc, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadRun(&doc)
	if err != nil {
		t.Fatal(err)
	}
	bl := results.NewBaseline("base.json", []string{"base.json"}, []*results.Run{back})
	if c, ok := bl.Case("hello-http", "close concurrency=100", "measured"); !ok || c.Server == nil || c.Server.RSSMax != 600<<20 {
		t.Fatalf("baseline case usage: %+v (found %v)", c.Server, ok)
	}

	res, _ := fixtureResult()
	res.Scenario.Thresholds = []scenarios.Threshold{{Rule: "server.rss_max <= baseline.server.rss_max && host.load1 <= baseline.host.load1"}}
	rules, err := assertions.Compile(res.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range rules.Judge(res, assertions.JudgeOptions{Baseline: bl}) {
		if v.Status != results.StatusPass {
			t.Errorf("%s: %s %q %q", v.Case, v.Status, v.Actual, v.Reason)
		}
	}
}

func TestCompareServerUsage(t *testing.T) {
	base, cand := abRun(), abRun()
	for i, c := range cand.Scenarios[0].Cases {
		c.Server.RSSMax = base.Scenarios[0].Cases[i].Server.RSSMax * 3 / 2
	}
	cand.Scenarios[0].Cases[1].Server = nil
	c, err := assertions.Compare(base, cand, assertions.CompareOptions{Tolerance: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| server CPU mean | 52.5% | 52.5% | 0.0% |",
		"| server RSS max (MiB) | 80.0 | 120.0 | +50.0% |",
		"| server RSS max (MiB) | 110.0 | — | |", // not monitored on the new side
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
}

// TestCompareNamedServers: the servers of monitors: are compared by name,
// one that only one side watched shown against a dash.
func TestCompareNamedServers(t *testing.T) {
	base, cand := abRun(), abRun()
	db := results.Usage{PID: 9, Samples: 5, CPUMean: 20, CPUMax: 30, RSSMax: 100 << 20}
	grown := db
	grown.CPUMean = 30
	base.Scenarios[0].Cases[0].Servers = []results.NamedUsage{{Name: "db", Usage: db}}
	cand.Scenarios[0].Cases[0].Servers = []results.NamedUsage{{Name: "db", Usage: grown}, {Name: "cache", Usage: db}}
	c, err := assertions.Compare(base, cand, assertions.CompareOptions{Tolerance: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| db CPU mean | 20.0% | 30.0% | +50.0% |",
		"| db RSS max (MiB) | 100.0 | 100.0 | 0.0% |",
		"| cache CPU mean | — | 20.0% | |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
}
