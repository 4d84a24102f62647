package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
)

// mainRun runs the gate scenario once, as a push to main would, and
// returns its results file.
func mainRun(t *testing.T, srv *demoserver.Server, path string) string {
	t.Helper()
	r, dir := runGate(t, path, srv)
	if r.code != ExitOK {
		t.Fatalf("main's run: exit %d\n%s", r.code, r.stderr)
	}
	return filepath.Join(dir, "results.json")
}

// shifted writes a copy of the results file at src as if it had ended
// by hours later, and returns its path.
func shifted(t *testing.T, src string, by int, spoil func(*results.Run)) string {
	t.Helper()
	run := readRun(t, src)
	run.End = run.End.Add(time.Duration(by) * time.Hour)
	if spoil != nil {
		spoil(run)
		run.Passed = false
	}
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func addToHistory(t *testing.T, store, file, commit string) invocation {
	t.Helper()
	return invoke(t, context.Background(), nil, "history", "add", file, "--store", store, "--commit", commit, "--branch", "main")
}

func TestHistoryAddRefusesWhatIsNotALevel(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 50 * time.Millisecond})
	path := writeScenario(t, strings.Replace(gateScenario, "LOAD", "rate: 200, max_in_flight: 64", 1))
	file := mainRun(t, srv, path)
	store := t.TempDir()

	r := addToHistory(t, store, file, "c1")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, filepath.Join(store, "gate")+string(filepath.Separator)) {
		t.Fatalf("add: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	written := strings.TrimSpace(r.stdout)
	if _, err := os.Stat(written); err != nil {
		t.Fatal(err)
	}
	if r := addToHistory(t, store, file, "c1"); r.code != ExitRun || !strings.Contains(r.stderr, "already in the store") {
		t.Fatalf("the same run again: exit %d, %q", r.code, r.stderr)
	}
	for _, tc := range []struct {
		name  string
		spoil func(*results.Run)
		want  string
	}{
		{"interrupted", func(r *results.Run) { r.Interrupted = true }, "interrupted"},
		{"aborted", func(r *results.Run) { r.Scenarios[0].Aborted = &results.Aborted{Rule: "p99 < 1ms"} }, "aborted"},
		{"failed to run", func(r *results.Run) { r.Scenarios[0].Error = "server did not start" }, "could not be carried out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := addToHistory(t, store, shifted(t, file, 1, tc.spoil), "c2")
			if r.code != ExitRun || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "not added to the history") {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join(store, "gate", "*.json"))
	if len(files) != 1 {
		t.Fatalf("%d files in the store, want the one run added", len(files))
	}
}

// A pull request judged against main's history: its case compares with
// the pooled trials of main's runs, and the reports say which; with too
// few runs of main the comparison is inconclusive, said why.
func TestBaselineHistory(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 50 * time.Millisecond})
	path := writeScenario(t, strings.Replace(gateScenario, "LOAD", "rate: 200, max_in_flight: 64", 1))
	file := mainRun(t, srv, path)
	young, store := t.TempDir(), t.TempDir()
	for i, commit := range []string{"c1", "c2", "c3", "c4", "c5"} {
		f := shifted(t, file, i-10, nil)
		if r := addToHistory(t, store, f, commit); r.code != ExitOK {
			t.Fatalf("add %s: exit %d %s", commit, r.code, r.stderr)
		}
		if i < 2 {
			addToHistory(t, young, f, commit)
		}
	}

	r, dir := runGate(t, path, srv, "--baseline-history", store)
	if r.code != ExitOK {
		t.Fatalf("pull request against main's history: exit %d\n%s", r.code, r.stderr)
	}
	run := readRun(t, filepath.Join(dir, "results.json"))
	if bi := run.Baseline; bi == nil || !bi.History || !bi.FingerprintMatch || bi.File != store {
		t.Fatalf("baseline info = %+v", run.Baseline)
	}
	cb := run.Scenarios[0].Cases[0].Baseline
	if cb == nil || cb.Runs != 5 || cb.Commits != "c1…c5" || cb.Trials != 25 || cb.Undecided != "" {
		t.Fatalf("case baseline = %+v", cb)
	}
	md, err := os.ReadFile(filepath.Join(dir, reporters.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"main's history in", "Against main's history", "| `hello` |", "5 runs, `c1…c5`"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}

	r, dir = runGate(t, path, srv, "--baseline-history", young)
	if r.code != ExitOK {
		t.Fatalf("against a young history: exit %d\n%s", r.code, r.stderr)
	}
	vs := verdictsByRule(t, readRun(t, filepath.Join(dir, "results.json")))
	for _, rule := range []string{`!regressed("rps", 5%)`, `!regressed("p50", 10%)`} {
		if v := vs[rule]; v.Status != results.StatusInconclusive || !strings.Contains(v.Reason, "holds 2 run(s) of this case, fewer than the 3") {
			t.Errorf("%s against 2 runs: %s %q", rule, v.Status, v.Reason)
		}
	}

	if r := invoke(t, context.Background(), nil, "run", "--baseline", file, "--baseline-history", store, path); r.code != ExitUsage {
		t.Fatalf("both baselines: exit %d, want 2", r.code)
	}
}
