package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/demoserver"
)

// abScenario compares a candidate target with its reference in one run, the
// trials of the two interleaved (SPEC §6, same-job A/B).
const abScenario = `version: 1
name: same-job-ab
vars:
  main: 127.0.0.1:8081
  pr: 127.0.0.1:8082
targets:
  - name: main
    http: { url: "http://${main}/" }
  - name: pr
    baseline_target: main
    http: { url: "http://${pr}/" }
phases:
  - name: warm
    warmup: true
    requests: 20
    concurrency: 2
  - name: measured
    duration: 300ms
    concurrency: 2
    trials: 5
    interleave: true
thresholds:
  - name: p50 did not regress
    rule: '!regressed("p50", 10%)'
    target: pr
`

func TestSameJobAB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ab.yaml")
	if err := os.WriteFile(path, []byte(abScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		main, pr demoserver.Config
		code     int
		check    string
	}{
		// Two servers alike, slow enough that a busy machine's scheduling
		// noise stays far inside p50's 10% tolerance: A/A must never be
		// called a regression.
		{"A/A passes", demoserver.Config{Delay: 50 * time.Millisecond}, demoserver.Config{Delay: 50 * time.Millisecond}, cli.ExitOK, "✓"},
		// The candidate answers twenty times slower: every trial of it is
		// worse than every trial of main, whatever else the machine does.
		{"A/B with 19ms more delay fails", demoserver.Config{Delay: time.Millisecond}, demoserver.Config{Delay: 20 * time.Millisecond}, cli.ExitFailed, "p50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			main, pr := start(t, tc.main), start(t, tc.pr)
			out := t.TempDir()
			code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
				"--var", "main="+main.HTTPAddr(), "--var", "pr="+pr.HTTPAddr(), path)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			md, err := os.ReadFile(filepath.Join(out, "summary.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "regressed(") || !strings.Contains(stdout, tc.check) {
				t.Errorf("verdict missing from the reports:\n%s", md)
			}
			for _, line := range strings.Split(stdout, "\n") {
				if strings.Contains(line, "regressed(") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}
