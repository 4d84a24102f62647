package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
)

func TestUnwritableOutputsStopTheRunBeforeAnyLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--out names an existing file", []string{"-o", file}, "--out " + file + ": mkdir: not a directory"},
		{"--out below a file", []string{"-o", filepath.Join(file, "results")}, "not a directory"},
		{"--junit names a directory", []string{"-o", "", "--junit", dir}, "--junit " + dir + ": is a directory"},
		{"--json below a file", []string{"-o", "", "--json", filepath.Join(file, "r.json")}, "--json " + filepath.Join(file, "r.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, demoserver.Config{})
			path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 5s", 1))
			args := append([]string{"run", "--no-progress", "--var", "host=" + srv.HTTPAddr()}, tc.args...)
			r := invoke(t, context.Background(), nil, append(args, path)...)
			if r.code != ExitRun {
				t.Fatalf("exit %d, want 3; stderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "nothing was sent") {
				t.Errorf("stderr does not say %q and that nothing was sent:\n%s", tc.want, r.stderr)
			}
			if n := srv.Stats().Requests; n != 0 {
				t.Errorf("the server counted %d requests: load was sent before the outputs were checked", n)
			}
		})
	}
}

func TestJSONOnStdoutIsJSONOnly(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 5s", 1))
	for _, extra := range [][]string{nil, {"--quiet"}} {
		t.Run(strings.Join(append([]string{"--json -"}, extra...), " "), func(t *testing.T) {
			args := append([]string{"run", "--no-progress", "-o", "", "--json", "-", "--var", "host=" + srv.HTTPAddr()}, extra...)
			r := invoke(t, context.Background(), nil, append(args, path)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			var run results.Run
			dec := json.NewDecoder(strings.NewReader(r.stdout))
			if err := dec.Decode(&run); err != nil {
				t.Fatalf("stdout is not one JSON document: %v\n%s", err, r.stdout)
			}
			if dec.More() {
				t.Errorf("stdout holds more than the JSON document:\n%s", r.stdout)
			}
			if !run.Passed || len(run.Scenarios) != 1 {
				t.Errorf("document: passed=%v, %d scenarios", run.Passed, len(run.Scenarios))
			}
			if !strings.Contains(r.stderr, "p99 < 5s") {
				t.Errorf("the threshold table did not go to stderr:\n%s", r.stderr)
			}
		})
	}
}

func TestTwoReportsCannotShareStdout(t *testing.T) {
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 5s", 1))
	r := invoke(t, context.Background(), nil, "run", "-o", "", "--json", "-", "--markdown", "-", "--var", "host=127.0.0.1:1", path)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "only one report can go there") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
