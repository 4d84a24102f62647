package reporters

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/results"
)

// Missing samples are not zeros: a monitor that sampled nothing shows "no
// sample" and why, one whose process exited says so, and neither shows a
// 0.0 MiB that would read as a measurement.
func TestUsageWithoutSamples(t *testing.T) {
	gone := &results.Usage{PID: 4242, Reason: "process 4242 is gone"}
	exited := &results.Usage{PID: 4242, Samples: 2, CPUMean: 12.5, CPUMax: 20, RSSMax: 10 << 20, HostLoad1Max: 0.5,
		Exited: true, Reason: "process 4242 exited"}
	withRAM := &results.Usage{PID: 4242, Samples: 3, CPUMean: 12.5, CPUMax: 20, RSSMax: 10 << 20, HostLoad1Max: 0.5,
		HostMemTotal: 8 << 30, RSSMaxPct: 100 * 10.0 / 8192}
	exitedAtOnce := &results.Usage{PID: 4242, Samples: 1, RSSMax: 10 << 20, HostLoad1Max: 0.5, Exited: true, Reason: "process 4242 exited"}
	for _, tc := range []struct {
		name         string
		u            *results.Usage
		console      string
		cpu, rss, ld string
	}{
		{"gone before the case", gone,
			"Server monitored: no sample (process 4242 is gone)\n\n", "no sample", "no sample", "no sample"},
		{"exited during it", exited,
			"Server monitored: cpu mean 12.5% (max 20.0%), rss max 10.0 MiB, host load1 max 0.50\n" +
				"Server monitored: process 4242 exited during case \"api\": the figures above cover the case until then\n\n",
			"12.5% / 20.0%", "10.0", "0.50"},
		// One sample, at the start: memory, but no interval to measure CPU over.
		{"exited before its second sample", exitedAtOnce,
			"Server monitored: cpu no sample, rss max 10.0 MiB, host load1 max 0.50\n" +
				"Server monitored: process 4242 exited during case \"api\": the figures above cover the case until then\n\n",
			"no sample", "10.0", "0.50"},
		{"share of the host's RAM", withRAM,
			"Server monitored: cpu mean 12.5% (max 20.0%), rss max 10.0 MiB (0.12% of RAM), host load1 max 0.50\n\n",
			"12.5% / 20.0%", "10.0 (0.12%)", "0.50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			consoleUsage(&b, &results.CaseResult{ID: "api", Server: tc.u, ServerName: "monitored"})
			if b.String() != tc.console {
				t.Errorf("console:\n%q\nwant\n%q", b.String(), tc.console)
			}
			cpu, rss, load := usageCells(tc.u)
			if cpu != tc.cpu || rss != tc.rss || load != tc.ld {
				t.Errorf("cells %q %q %q, want %q %q %q", cpu, rss, load, tc.cpu, tc.rss, tc.ld)
			}
		})
	}
}

// TestMarkdownSaysWhatUsageLacks renders the fixture with one case whose
// process was gone and one whose process exited during it.
func TestMarkdownSaysWhatUsageLacks(t *testing.T) {
	run := fixtureRun()
	cases := run.Scenarios[0].Cases
	cases[0].Server = &results.Usage{PID: 4242, Reason: "process 4242 is gone"}
	cases[1].Server.Exited, cases[1].Server.Reason = true, "process 4242 exited"
	var b bytes.Buffer
	if err := WriteMarkdown(&b, run); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| no sample | no sample | no sample |",
		"> ⚠️ " + mdText(cases[0].ID+": no sample of the server (process 4242 is gone), so rules on server.* are skipped") + "\n",
		"> ⚠️ " + mdText("process 4242 exited during case "+cases[1].ID+": its figures cover the case until then, so rules on server.* are skipped") + "\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	row := md[strings.Index(md, "| `"+cases[0].ID):]
	row = row[:strings.IndexByte(row, '\n')]
	if strings.Contains(row, "0.0%") || strings.Contains(row, "| 0.0 |") {
		t.Errorf("the case without a sample shows zeros: %s", row)
	}
}
