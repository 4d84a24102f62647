package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// TestSIGINTWritesPartialResults runs the real binary, interrupts it like a
// user pressing Ctrl-C, and checks the exit code, the delay and the results.
func TestSIGINTWritesPartialResults(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "loadgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	srv, err := demoserver.Start(context.Background(), demoserver.Config{HTTPAddr: "127.0.0.1:0", Delay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	scenario := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(scenario, []byte(`version: 1
name: long
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - name: measured
    duration: 60s
    concurrency: 8
thresholds:
  - error_rate == 0
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), scenario)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let the load run until the server has seen some of it.
	deadline := time.Now().Add(20 * time.Second)
	for srv.Stats().Requests < 200 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("loadgate did not exit within 10s of SIGINT")
	}
	if took := time.Since(sent); took > 2*time.Second {
		t.Errorf("exit took %v after SIGINT, want under 2s", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("no partial results: %v", err)
	}
	var res struct {
		Interrupted bool `json:"interrupted"`
		Scenarios   []struct {
			Cases []struct {
				Stats struct{ Requests int64 } `json:"stats"`
			} `json:"cases"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Scenarios) != 1 || res.Scenarios[0].Cases[0].Stats.Requests == 0 {
		t.Errorf("results.json: interrupted=%v, requests lost: %+v", res.Interrupted, res)
	}
}
