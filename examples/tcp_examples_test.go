package examples_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/demoserver"
)

func TestLongVsShortTCP(t *testing.T) {
	srv := start(t, demoserver.Config{TCPAddr: "127.0.0.1:0"})
	const warmup, measured = 500, 1000
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "host="+srv.TCPAddr(),
		"--var", "warmup_requests="+strconv.Itoa(warmup), "--var", "requests="+strconv.Itoa(measured),
		"long-vs-short-tcp/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	cases := readResults(t, out).Scenarios[0].Cases
	want := []string{
		"persistent concurrency=1", "persistent concurrency=10", "persistent concurrency=50",
		"per_iteration concurrency=1", "per_iteration concurrency=10", "per_iteration concurrency=50",
	}
	if len(cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(cases), len(want))
	}
	for i, c := range cases {
		if c.ID != want[i] || c.Stats.Requests != measured || c.Stats.Failed != 0 {
			t.Errorf("case %d = %s: %d requests, %d failed; want %s: %d, 0", i, c.ID, c.Stats.Requests, c.Stats.Failed, want[i], measured)
		}
	}

	// A persistent worker opens one connection for all its iterations, in
	// each of the two phases, when it gets an iteration at all: on a busy
	// machine the first workers can use up a phase's request budget before
	// the last one starts. per_iteration opens one for every iteration.
	levels := 1 + 10 + 50
	iterations := 3 * (warmup + measured) // per target: three levels, two phases
	perIteration := iterations
	st := srv.Stats()
	if persistent := st.TCPAccepted - int64(perIteration); persistent < 2*3 || persistent > int64(2*levels) {
		t.Errorf("server accepted %d connections, want %d for per_iteration (one per iteration) and from %d to %d for persistent (at most one per worker and phase)",
			st.TCPAccepted, perIteration, 2*3, 2*levels)
	}
	// Every connection starts with its Connect handshake; every iteration
	// sends four monitor messages.
	if wantFrames := int64(2*4*iterations) + st.TCPAccepted; st.Frames != wantFrames {
		t.Errorf("server received %d frames, want %d", st.Frames, wantFrames)
	}

	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	side := string(md)
	if i := strings.Index(side, "Side by side"); i >= 0 {
		side = side[i:]
	} else {
		t.Fatalf("summary.md has no side-by-side table:\n%s", md)
	}
	for _, w := range []string{"persistent rps", "per_iteration rps", "concurrency=1 |", "concurrency=10 |", "concurrency=50 |"} {
		if !strings.Contains(side, w) {
			t.Errorf("side-by-side table lacks %q:\n%s", w, side)
		}
	}
	if !strings.Contains(stdout, "new connections") {
		t.Errorf("console lacks the connect times:\n%s", stdout)
	}
}

// TestRedis runs the redis example against a private redis-server on a
// free loopback port.
func TestRedis(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server is not installed (apt-get install redis-server)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	addr := startRedis(t, bin)
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "host="+addr, "--var", "requests=2000", "redis/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	cases := readResults(t, out).Scenarios[0].Cases
	if len(cases) != 3 {
		t.Fatalf("%d cases, want ping, set and get", len(cases))
	}
	for _, c := range cases {
		if c.Stats.Requests != 2000 || c.Stats.Failed != 0 {
			t.Errorf("%s: %d requests, %d failed; want 2000, 0", c.ID, c.Stats.Requests, c.Stats.Failed)
		}
	}
}

// startRedis starts redis-server without persistence on a free loopback
// port and returns its address once it answers.
func startRedis(t *testing.T, bin string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	_ = ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--port", port, "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := redisPing(addr); err == nil {
			return addr
		} else if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not answer PING: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func redisPing(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 7)
	n, err := c.Read(buf)
	if got := string(buf[:n]); got != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q (%v)", got, err)
	}
	return nil
}
