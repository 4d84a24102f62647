package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// TestSecondSIGINTKillsAStubbornServer: a server under test that ignores
// SIGTERM would hold loadgate for its whole stop_timeout (60s here) after a
// Ctrl-C; the second Ctrl-C must kill it at once, and the run must still
// write its partial results and exit 130.
func TestSecondSIGINTKillsAStubbornServer(t *testing.T) {
	srv, err := demoserver.Start(context.Background(), demoserver.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	scenario := filepath.Join(dir, "stubborn.yaml")
	if err := os.WriteFile(scenario, []byte(`version: 1
name: stubborn
server:
  command: trap 'echo got TERM' TERM; echo pid=$$$$; while :; do sleep 1; done
  stop_timeout: 60s
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - name: measured
    duration: 60s
    concurrency: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(build(t), "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), scenario)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	logPath := filepath.Join(out, "server-server.log")
	m := awaitLog(t, logPath, regexp.MustCompile(`pid=(\d+)`), exited, &stderr)
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }) // only if the test failed
	for srv.Stats().Requests == 0 {
		select {
		case <-exited:
			t.Fatalf("loadgate exited before the load started:\n%s", &stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// The server saw its stop signal, so loadgate is waiting out stop_timeout.
	awaitLog(t, logPath, regexp.MustCompile(`got TERM`), exited, &stderr)
	if !running(pid) {
		t.Fatal("the server ended on SIGTERM; the test needs one that ignores it")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// Far below the 60s stop_timeout, far above any scheduling delay.
	if !gone(pid, 10*time.Second) {
		t.Fatal("the server outlived the second SIGINT by 10s; stop_timeout is 60s")
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("loadgate did not exit after the server was killed")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatalf("no partial results: %v", err)
	}
	var res struct {
		Interrupted bool `json:"interrupted"`
	}
	if err := json.Unmarshal(data, &res); err != nil || !res.Interrupted {
		t.Errorf("results.json: interrupted=%v (%v)", res.Interrupted, err)
	}
}

// awaitLog polls a file until re matches it, for at most 20s, and gives up
// at once if loadgate exits.
func awaitLog(t *testing.T, path string, re *regexp.Regexp, exited <-chan struct{}, stderr *bytes.Buffer) []string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if m := re.FindStringSubmatch(string(b)); m != nil {
			return m
		}
		select {
		case <-exited:
			t.Fatalf("loadgate exited before %s showed %q:\n%s", path, re, stderr)
		case <-deadline:
			t.Fatalf("%s: no %q after 20s:\n%s", path, re, b)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// running reports whether pid is a live process; a zombie is not (the
// container's init may be slow to reap).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	return len(f) > 0 && string(f[0]) != "Z"
}

// gone polls until pid is no longer running, for at most within.
func gone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for running(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
