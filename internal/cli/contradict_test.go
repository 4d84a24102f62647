package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// abortScenario is stopped by its abort rule at the first check, a second
// into its phase: a real aborted run, exit 1.
const abortScenario = `version: 1
name: gate
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - { name: measured, duration: 30s, concurrency: 2 }
thresholds:
  - { rule: "p99 < 1ns", abort: true }
  - rps > 0
`

// TestReadersRefuseAContradictedPassed: report, compare and --baseline
// refuse, with exit 2 and the field that contradicts it, a results file
// whose written "passed" is not what its verdicts, interruption, abort,
// invalidity or errors say; nothing is sent for --baseline.
func TestReadersRefuseAContradictedPassed(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, quickScenario)
	r, dir := runGate(t, path, srv)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	good := filepath.Join(dir, "results.json")
	r, dir = runGate(t, writeScenario(t, abortScenario), srv)
	if r.code != ExitFailed {
		t.Fatalf("aborted run: exit %d, want 1: %s", r.code, r.stderr)
	}
	abortedRun := filepath.Join(dir, "results.json")
	claim := func(passed bool, edit func(map[string]any)) func(map[string]any) {
		return func(d map[string]any) {
			edit(d)
			d["passed"] = passed
		}
	}
	tests := []struct {
		name string
		src  string
		edit func(map[string]any)
		want string // after the file's path and ": "
		more string // further on in the message
	}{
		// When the rule stopped the phase depends on the machine's pace.
		{"an aborted run said to pass", abortedRun, claim(true, func(map[string]any) {}),
			`"passed": true contradicts the "aborted" of scenario "gate" (abort rule "p99 < 1ns" stopped case "hello" at `,
			`) and its verdicts (1 failed: case "hello" p99 < 1ns)`},
		{"a failed verdict", good, claim(true, func(d map[string]any) {
			firstCase(d)["verdicts"].([]any)[0].(map[string]any)["status"] = "fail"
		}), `"passed": true contradicts its verdicts (1 failed: case "hello" rps > 0)`, ""},
		{"an interrupted run", good, claim(true, func(d map[string]any) { d["interrupted"] = true }),
			`"passed": true contradicts "interrupted": true`, ""},
		{"a case that errored", good, claim(true, func(d map[string]any) { firstCase(d)["error"] = "no request completed" }),
			`"passed": true contradicts the "error" of case "hello" (no request completed)`, ""},
		{"an invalid run", good, claim(true, func(d map[string]any) {
			p := firstPhase(d)
			p["rate"] = map[string]any{"from": 10000, "to": 10000}
			p["dropped"] = 49950
			p["generator"] = map[string]any{"cpu": 0.97}
		}), `"passed": true contradicts its figures, which make the run invalid (gate / hello: phase measured: the generator sent `, ""},
		{"a pass said to fail", good, claim(false, func(map[string]any) {}),
			`"passed": false contradicts the document: no verdict fails the run`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forged := mutated(t, tc.src, "results.json", tc.edit)
			want := forged + ": " + tc.want
			before := srv.Stats().Requests
			for _, args := range [][]string{
				{"report", "--format", "markdown", "-o", filepath.Join(t.TempDir(), "r.md"), forged},
				{"compare", good, forged},
				{"compare", forged, good},
				{"run", "--no-progress", "-o", "", "--baseline", forged, "--var", "host=" + srv.HTTPAddr(), path},
				{"run", "--no-progress", "-o", "", "--baseline", filepath.Dir(forged), "--var", "host=" + srv.HTTPAddr(), path},
			} {
				r := invoke(t, context.Background(), nil, args...)
				if r.code != ExitUsage || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, tc.more) {
					t.Errorf("%s: exit %d, want 2 with\n%s…%s\nin stderr:\n%s", args[0], r.code, want, tc.more, r.stderr)
				}
			}
			if sent := srv.Stats().Requests - before; sent != 0 {
				t.Errorf("%d requests sent despite the refusals", sent)
			}
		})
	}

	// The untouched files are read as they are.
	for _, tc := range []struct {
		file string
		code int
	}{{good, ExitOK}, {abortedRun, ExitFailed}} {
		r := invoke(t, context.Background(), nil, "report", "--format", "markdown", "-o", filepath.Join(t.TempDir(), "r.md"), tc.file)
		if r.code != tc.code {
			t.Errorf("report %s: exit %d, want %d:\n%s", tc.file, r.code, tc.code, r.stderr)
		}
	}
}
