package reporters

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/results"
)

// serversRun is the fixture whose first two cases watched an application
// and its database, the second's database not sampled.
func serversRun() *results.Run {
	run := fixtureRun()
	cases := run.Scenarios[0].Cases
	cost := 12.5
	cases[0].Server, cases[0].ServerName = &results.Usage{PID: 10, Samples: 5, CPUMean: 36, CPUMax: 50, RSSMax: 100 << 20}, "app"
	cases[0].Servers = []results.NamedUsage{{Name: "db", Usage: results.Usage{PID: 11, Samples: 5, CPUMean: 23, CPUMax: 40, RSSMax: 850 << 20, CPUPerRequestUS: &cost}}}
	cases[1].Server, cases[1].ServerName = &results.Usage{PID: 10, Samples: 5, CPUMean: 57, CPUMax: 70, RSSMax: 110 << 20}, "app"
	cases[1].Servers = []results.NamedUsage{{Name: "db", Usage: results.Usage{PID: 11, Reason: "process 11 is gone"}}}
	for _, c := range cases[2:] {
		c.ServerName = "app"
	}
	return run
}

func TestServersSideBySide(t *testing.T) {
	run := serversRun()
	cases := run.Scenarios[0].Cases
	header := "| case | rps | mean | p99 | app CPU mean / max | app CPU per request (µs) | app RSS max (MiB) | db CPU mean / max | db CPU per request (µs) | db RSS max (MiB) |"
	var md bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Servers side by side**\n\n" + header + "\n|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
		"| 36.0% / 50.0% | — | 100.0 | 23.0% / 40.0% | 12.5 | 850.0 |\n",
		"| 57.0% / 70.0% | — | 110.0 | no sample | no sample | no sample |\n",
		"> ⚠️ " + mdText(cases[1].ID+": no sample of server db (process 11 is gone), so rules on servers.db are skipped"),
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<h3>Servers side by side</h3>",
		"<th>db CPU per request (µs)</th>",
		"<td>23.0% / 40.0%</td><td>12.5</td><td>850.0</td>",
	} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	var console bytes.Buffer
	consoleUsage(&console, &results.CaseResult{ID: "c", Server: cases[0].Server, ServerName: "app", Servers: cases[0].Servers})
	want := "Server app: cpu mean 36.0% (max 50.0%), rss max 100.0 MiB, host load1 max 0.00\n\n" +
		"Server db: cpu mean 23.0% (max 40.0%), cpu per request 12.5 µs, rss max 850.0 MiB, host load1 max 0.00\n\n"
	if console.String() != want {
		t.Errorf("console:\n%q\nwant\n%q", console.String(), want)
	}
}

// TestNoServersTableForOne: one server's figures are the case table's.
func TestNoServersTableForOne(t *testing.T) {
	var md bytes.Buffer
	if err := WriteMarkdown(&md, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Servers side by side") {
		t.Error("a table of servers side by side for a run that watched one")
	}
}
