package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/internal/testbin"
)

// TestSIGINTWritesPartialResults runs the real binary, interrupts it like a
// user pressing Ctrl-C, and checks the exit code, the delay and the results.
func TestSIGINTWritesPartialResults(t *testing.T) {
	dir := t.TempDir()
	bin := build(t)
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

// loadgate is this package's command, built once for its tests.
var loadgate = testbin.New(".")

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, loadgate)) }

// build is the path of the command, built on first use.
func build(t *testing.T) string { return loadgate.Path(t) }

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// serverScenario writes a scenario whose server block runs script (sh -c).
func serverScenario(t *testing.T, addr, script, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sut.yaml")
	body := fmt.Sprintf(`version: 1
name: sut
server:
  command: %q
  ready: { http: "http://%s/health", timeout: %s }
  stop_timeout: 2s
targets:
  - name: hello
    http: { url: "http://%s/" }
phases:
  - name: measured
    duration: 30s
    concurrency: 2
thresholds:
  - error_rate < 1%%
`, script, addr, extra, addr)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runBinary(t *testing.T, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	var out, errb strings.Builder
	cmd := exec.Command(build(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	_ = cmd.Run()
	return cmd.ProcessState.ExitCode(), out.String(), errb.String(), time.Since(start)
}

func TestServerNeverReadyExits3WithinTheTimeout(t *testing.T) {
	addr := freeAddr(t)
	path := serverScenario(t, addr, "echo booting the server; sleep 60", "1s")
	code, _, stderr, took := runBinary(t, "run", "--no-progress", "-o", t.TempDir(), path)
	if code != 3 || !strings.Contains(stderr, "not ready after 1s") || !strings.Contains(stderr, "booting the server") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if took > 10*time.Second {
		t.Errorf("took %v for a 1s readiness timeout", took)
	}
}

func TestServerCrashMidRunExits3WithPartialResults(t *testing.T) {
	addr := freeAddr(t)
	script := fmt.Sprintf("%s serve --http %s & pid=$!; sleep 2; kill -9 $pid; echo 'fatal: simulated crash' >&2; exit 1", build(t), addr)
	out := t.TempDir()
	code, stdout, stderr, took := runBinary(t, "run", "--no-progress", "-o", out, serverScenario(t, addr, script, "20s"))
	if code != 3 {
		t.Fatalf("exit %d, want 3; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "simulated crash") {
		t.Errorf("the server's log tail is not shown:\n%s", stderr)
	}
	if took > 20*time.Second {
		t.Errorf("the run went on for %v after the crash", took)
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil || !strings.Contains(string(data), `"requests"`) {
		t.Errorf("partial results not written (%v)", err)
	}
	if md, _ := os.ReadFile(filepath.Join(out, "summary.md")); !strings.Contains(string(md), "simulated crash") {
		t.Errorf("summary.md lacks the log tail:\n%s\nstdout:\n%s", md, stdout)
	}
}

func TestSIGINTStopsTheServer(t *testing.T) {
	addr := freeAddr(t)
	path := serverScenario(t, addr, build(t)+" serve --http "+addr, "20s")
	cmd := exec.Command(build(t), "run", "--no-progress", "-o", t.TempDir(), path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !listening(addr) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // some load
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("loadgate did not exit after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if listening(addr) {
		t.Error("the server under test still listens after loadgate exited")
	}
}
