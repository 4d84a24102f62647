package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// savedResults runs basicScenario with rule once and returns its results.json.
func savedResults(t *testing.T, srv *demoserver.Server, rule string, wantCode int) string {
	t.Helper()
	out := t.TempDir()
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", rule, 1))
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), path)
	if r.code != wantCode {
		t.Fatalf("run: exit %d, want %d; stderr:\n%s", r.code, wantCode, r.stderr)
	}
	return filepath.Join(out, "results.json")
}

func TestReportRendersSavedResults(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	passed := savedResults(t, srv, "p99 < 5s", ExitOK)
	failed := savedResults(t, srv, "rps > 1e9", ExitFailed)
	interrupted := filepath.Join(t.TempDir(), "interrupted.json")
	data := strings.Replace(readFile(t, passed), `"passed": true`, `"interrupted": true, "passed": false`, 1)
	if err := os.WriteFile(interrupted, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(t.TempDir(), "again.md")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings of stdout
		file   []string // substrings of outFile
		stderr string
	}{
		{"html by default", []string{passed}, ExitOK, []string{"<!doctype html>", "</svg> loadgate: passed</h1>", `<svg class="chart"`}, nil, ""},
		{"failed run exits 1", []string{"--format", "markdown", failed}, ExitFailed, []string{"## ❌ loadgate: failed"}, nil, "the run failed"},
		{"interrupted run exits 130", []string{interrupted}, ExitInterrupted, []string{"interrupted — not judged"}, nil, "interrupted"},
		{"several files side by side", []string{passed, failed}, ExitFailed, []string{"Results file: <code>" + passed, "Results file: <code>" + failed}, nil, ""},
		{"markdown by extension", []string{"-o", outFile, passed, failed}, ExitFailed, nil, []string{"# Results: `" + passed + "`", "## ✅ loadgate: passed", "\n---\n", "## ❌ loadgate: failed"}, ""},
		{"junit", []string{"--format", "junit", passed}, ExitOK, []string{"<testsuites"}, nil, ""},
		{"junit of two runs", []string{"--format", "junit", passed, failed}, ExitUsage, nil, nil, "takes one results file"},
		{"unknown format", []string{"--format", "pdf", passed}, ExitUsage, nil, nil, `--format "pdf"`},
		{"no file", nil, ExitUsage, nil, nil, "no results file"},
		{"missing file", []string{filepath.Join(t.TempDir(), "none.json")}, ExitUsage, nil, nil, "none.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := invoke(t, context.Background(), nil, append([]string{"report"}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
			for _, w := range tc.file {
				if got := readFile(t, outFile); !strings.Contains(got, w) {
					t.Errorf("%s lacks %q:\n%.400s", outFile, w, got)
				}
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.stderr)
			}
		})
	}
}

func TestHTMLFlagWritesReport(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 5s", 1))
	html := filepath.Join(t.TempDir(), "sub", "r.html")
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", "", "--html", html, "--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if got := readFile(t, html); !strings.Contains(got, "</svg> loadgate: passed</h1>") || !strings.Contains(got, "latency by percentile") {
		t.Errorf("--html file is not the report:\n%.300s", got)
	}
	r = invoke(t, context.Background(), nil, "run", "--no-progress", "-o", "", "--html", "-", "--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "<!doctype html>") {
		t.Errorf("--html -: exit %d, stdout starts %.60q", r.code, r.stdout)
	}
}
