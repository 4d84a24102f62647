package reporters

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/runner"
)

func TestConsoleSummaryGolden(t *testing.T) {
	res, verdicts := fixtureResult()
	var b bytes.Buffer
	c := NewConsole(&b, ConsoleOptions{})
	c.Summary(res, verdicts)
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	golden(t, "console.golden.txt", b.Bytes())

	out := b.String()
	for _, want := range []string{
		"warmup (warm-up): 1,000 requests in 2.00s",
		"Concurrency Level:      100",
		"   (Connect: 12, Timeout: 3, Reset: 30, Status: 0, Length: 0, Check: 0, Protocol: 0, Other: 0)",
		"Connection Times (ms)",
		"Percentage of the requests served within a certain time (ms)",
		"(longest request)",
		"✗ FAIL",
		"! WARN",
		"- skip",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

func TestConsoleSummaryQuiet(t *testing.T) {
	res, verdicts := fixtureResult()
	var b bytes.Buffer
	NewConsole(&b, ConsoleOptions{Quiet: true}).Summary(res, verdicts)
	golden(t, "console-quiet.golden.txt", b.Bytes())
	if strings.Contains(b.String(), "Connection Times") {
		t.Error("quiet summary prints the ab block")
	}
}

// clock is a settable clock for pacing tests.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func snap(elapsed time.Duration, completed int64) runner.Snapshot {
	return runner.Snapshot{
		Scenario: "hello-http", Case: "keepalive concurrency=10", Phase: "measured",
		Elapsed: elapsed, Planned: 30 * time.Second, Completed: completed,
		Failed: 2, RPS: 8000, P99: 1500 * time.Microsecond,
	}
}

func TestConsolePlainProgress(t *testing.T) {
	clk := &clock{now: t0}
	var b bytes.Buffer
	c := NewConsole(&b, ConsoleOptions{Now: clk.Now})
	c.PhaseStarted(snap(0, 0))
	for s := 1; s <= 12; s++ {
		clk.now = t0.Add(time.Duration(s) * time.Second)
		c.Progress(snap(time.Duration(s)*time.Second, int64(s)*8000))
	}
	res := &runner.PhaseResult{Name: "measured", Elapsed: 12 * time.Second, Latency: runner.NewHistogram()}
	res.Requests, res.Failed = 96000, 2
	res.Errors.Timeout = 2
	c.PhaseDone(snap(12*time.Second, 96000), res)

	want := strings.Join([]string{
		"hello-http / keepalive concurrency=10 / measured: started (up to 30s)",
		// One line every 5 s, not every second: CI logs stay readable.
		"hello-http / keepalive concurrency=10 / measured  5s/30s  40,000 done  8,000.0 rps  2 errors (0.01%)  p99 1.50ms  ETA 25s",
		"hello-http / keepalive concurrency=10 / measured  10s/30s  80,000 done  8,000.0 rps  2 errors (0.00%)  p99 1.50ms  ETA 20s",
		"hello-http / keepalive concurrency=10 / measured: done, 96,000 requests in 12.00s, 8,000.0 rps, 2 failed (timeout 2), p99 0",
		"",
	}, "\n")
	if got := b.String(); got != want {
		t.Errorf("plain progress:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(b.String(), "\r") {
		t.Error("plain progress contains a carriage return")
	}
}

func TestConsoleTTYProgress(t *testing.T) {
	var b bytes.Buffer
	c := NewConsole(&b, ConsoleOptions{TTY: true})
	s := snap(time.Second, 8000)
	s.Case = "k"
	c.PhaseStarted(s)
	s.Elapsed, s.Completed = 2*time.Second, 16000
	c.Progress(s)
	s.Planned = 0 // a shorter line must wipe the rest of the longer one
	c.Progress(s)
	c.PhaseDone(s, nil)

	out := b.String()
	frames := strings.Split(out, "\r")
	if len(frames) < 4 {
		t.Fatalf("want the line redrawn with \\r, got %q", out)
	}
	long := "hello-http / k / measured  2s/30s  16,000 done  8,000.0 rps  2 errors (0.01%)  p99 1.50ms  ETA 28s"
	short := "hello-http / k / measured  2s  16,000 done  8,000.0 rps  2 errors (0.01%)  p99 1.50ms"
	if frames[2] != long {
		t.Errorf("frame 2 = %q, want %q", frames[2], long)
	}
	if want := short + strings.Repeat(" ", len(long)-len(short)); frames[3] != want {
		t.Errorf("frame 3 = %q, want %q", frames[3], want)
	}
	if !strings.HasSuffix(out, "\rhello-http / k / measured: done\n") {
		t.Errorf("done line does not replace the live line: %q", out)
	}
}

func TestConsoleTTYWidth(t *testing.T) {
	var b bytes.Buffer
	c := NewConsole(&b, ConsoleOptions{TTY: true, Width: 20})
	c.Progress(snap(time.Second, 8000))
	if got := strings.TrimPrefix(b.String(), "\r"); len([]rune(got)) != 19 {
		t.Errorf("live line %q is not cut to the terminal width", got)
	}
}

func TestConsoleNoProgress(t *testing.T) {
	for name, opts := range map[string]ConsoleOptions{
		"quiet":       {TTY: true, Quiet: true},
		"no progress": {NoProgress: true},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			c := NewConsole(&b, opts)
			c.PhaseStarted(snap(0, 0))
			c.Progress(snap(10*time.Second, 10))
			c.PhaseDone(snap(10*time.Second, 10), nil)
			if b.Len() != 0 {
				t.Errorf("printed %q", b.String())
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestConsoleKeepsWriteError(t *testing.T) {
	c := NewConsole(failingWriter{}, ConsoleOptions{})
	c.PhaseStarted(snap(0, 0))
	if err := c.Err(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Err() = %v, want the write error", err)
	}
}

func TestETA(t *testing.T) {
	tests := []struct {
		name   string
		s      runner.Snapshot
		want   time.Duration
		wantOK bool
	}{
		{"duration only", runner.Snapshot{Elapsed: 10 * time.Second, Planned: 30 * time.Second}, 20 * time.Second, true},
		{"overran its duration", runner.Snapshot{Elapsed: 31 * time.Second, Planned: 30 * time.Second}, 0, true},
		{"requests at the current rate", runner.Snapshot{Completed: 1000, Target: 5000, RPS: 1000}, 4 * time.Second, true},
		{"requests, rate unknown yet", runner.Snapshot{Completed: 0, Target: 5000}, 0, false},
		{"requests come first", runner.Snapshot{Elapsed: time.Second, Planned: time.Minute, Completed: 1000, Target: 3000, RPS: 1000}, 2 * time.Second, true},
		{"duration comes first", runner.Snapshot{Elapsed: 9 * time.Second, Planned: 10 * time.Second, Completed: 1000, Target: 1e6, RPS: 1000}, time.Second, true},
		{"no limit", runner.Snapshot{Elapsed: time.Second, RPS: 10}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := eta(tt.s)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("eta = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestTTYOnFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if TTY(f) {
		t.Error("a regular file is not a terminal")
	}
	if TTY(nil) {
		t.Error("nil is not a terminal")
	}
}
