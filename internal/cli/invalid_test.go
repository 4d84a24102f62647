package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// floodScenario asks for far more than any machine sends: its p99 is
// loadgate's own queue, which its generous threshold would pass.
const floodScenario = `version: 1
name: flood
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - { name: measured, rate: 2000000, duration: 500ms }
thresholds:
  - p99 < 1h
`

// TestInvalidRunIsNeverGreen: a run that applied a sliver of its load
// exits 3 with the reason, says "invalid — not judged" everywhere, and
// is refused as a baseline, by compare and by report's verdict.
func TestInvalidRunIsNeverGreen(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, floodScenario)
	out, tmp := t.TempDir(), t.TempDir()
	stepSummary := filepath.Join(tmp, "step-summary.md")
	gh := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": stepSummary}
	r := invoke(t, context.Background(), gh, "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), path)
	const why = "invalid run — not judged: flood / hello: phase measured: the generator sent "
	if r.code != ExitRun || !strings.Contains(r.stderr, why) || !strings.Contains(r.stderr, "of the requested 2,000,000/s") {
		t.Fatalf("exit %d, want 3 with %q in stderr:\n%s", r.code, why, r.stderr)
	}
	var doc struct {
		Passed *bool `json:"passed"`
	}
	invalid := filepath.Join(out, "results.json")
	readJSON(t, invalid, &doc)
	if doc.Passed == nil || *doc.Passed {
		t.Errorf("results.json: passed %v, want false", doc.Passed)
	}
	for file, want := range map[string]string{
		filepath.Join(out, "summary.md"):  "## ⚠ loadgate: invalid — not judged\n",
		stepSummary:                       "## ⚠ loadgate: invalid — not judged\n",
		filepath.Join(out, "junit.xml"):   `type="invalid">`,
		filepath.Join(out, "report.html"): "</svg> loadgate: invalid — not judged", // after its mark
	} {
		if got := readFile(t, file); !strings.Contains(got, want) || strings.Contains(got, "loadgate: passed") {
			t.Errorf("%s lacks %q or says passed:\n%.400s", file, want, got)
		}
	}
	if !strings.Contains(r.stdout, "::error title=loadgate%3A invalid — not judged::") || !strings.Contains(r.stdout, "⚠ not judged") {
		t.Errorf("no invalid annotation or not-judged threshold on stdout:\n%s", r.stdout)
	}

	// report says so again; a hand-set "passed": true is refused, not
	// rendered green.
	r = invoke(t, context.Background(), nil, "report", "--format", "markdown", "-o", filepath.Join(tmp, "r.md"), invalid)
	if r.code != ExitRun || !strings.Contains(r.stderr, "invalid run — not judged") {
		t.Errorf("report: exit %d, want 3:\n%s", r.code, r.stderr)
	}
	if md, _ := os.ReadFile(filepath.Join(tmp, "r.md")); !strings.HasPrefix(string(md), "## ⚠ loadgate: invalid — not judged") {
		t.Errorf("report headline:\n%.300s", md)
	}
	forged := mutated(t, invalid, "results.json", func(d map[string]any) { d["passed"] = true })
	r = invoke(t, context.Background(), nil, "report", "--format", "markdown", "-o", filepath.Join(tmp, "forged.md"), forged)
	if want := `"passed": true contradicts its figures, which make the run invalid (flood / hello`; r.code != ExitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("report of a forged pass: exit %d, want 2 with %q:\n%s", r.code, want, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(tmp, "forged.md")); err == nil {
		t.Error("report rendered a refused document")
	}

	before := srv.Stats().Requests
	r = invoke(t, context.Background(), nil, "run", "--no-progress", "-o", "", "--baseline", invalid, "--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "an invalid run cannot be a baseline") {
		t.Errorf("--baseline: exit %d, want 2:\n%s", r.code, r.stderr)
	}
	if sent := srv.Stats().Requests - before; sent != 0 {
		t.Errorf("--baseline: %d requests sent despite the refusal", sent)
	}
	r = invoke(t, context.Background(), nil, "compare", invalid, invalid)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "an invalid run cannot be compared") || strings.Contains(r.stdout, "no regression") {
		t.Errorf("compare: exit %d, want 2:\n%s\n%s", r.code, r.stderr, r.stdout)
	}
}
