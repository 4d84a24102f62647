package reporters

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
)

// The engine reports progress to a Console; the check lives here so that
// the package itself need not import the engine.
var _ runner.Observer = (*Console)(nil)

// consoleSummaries prints the summaries of both measured fixture
// scenarios, as `loadgate run` does for two scenario files.
func consoleSummaries(t *testing.T, opts ConsoleOptions) string {
	t.Helper()
	var b bytes.Buffer
	c := NewConsole(&b, opts)
	res, verdicts := fixtureResult()
	c.Summary(res, verdicts)
	slo, sloVerdicts := sloResult()
	c.Summary(slo, sloVerdicts)
	flow, flowVerdicts := flowResult()
	c.Summary(flow, flowVerdicts)
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestConsoleSummaryGolden(t *testing.T) {
	out := consoleSummaries(t, ConsoleOptions{})
	golden(t, "console.golden.txt", []byte(out))

	for _, want := range []string{
		"warmup (warm-up): 1,000 requests in 2.00s",
		"Concurrency Level:      100",
		"   (Connect: 12, Timeout: 3, Reset: 30, Status: 0, Length: 0, Check: 0, Extract: 0, Protocol: 0, Unfinished: 0, Other: 0)",
		"Connection Times (ms)",
		"Percentage of the succeeded requests served within a certain time (ms)",
		// What failed, in the words of the first failure of each kind.
		"   first connect error: dial tcp 127.0.0.1:8081: connect: connection refused",
		"   first status error: unexpected status 503",
		"Attempted per second:",
		"Failed:      ",
		"(longest request)",
		"✗ FAIL",
		"! WARN",
		"- skip",
		// The open model: requested against achieved, drops, send lag.
		"warmup (warm-up): 1,000 requests in 2.00s, 500.0 rps of 500/s requested, 0 failed, 0 dropped",
		"Rate:                   2000/s requested, 1992.6/s sent, 1992.6/s succeeded",
		"Max in flight:          200",
		"Dropped:                111 (due but never sent",
		"Send lag (ms):          p50 0.05, p99 12.01, max 20.02",
		// Trials: the median, each trial, the spread.
		"Requests per second:    4920.00 [#/sec] (succeeded; median of 3 trials)",
		"rps median 4920.0 (min 4850.0, max 5100.0, CV 2.6%)",
		// A flow: a row per step after the block of all steps, the failed
		// step's errors by kind, then the iterations.
		"   list     10000  997.00      2.96      3.96      30",
		"    get      9970  997.00      1.48      1.98       0",
		"   list failed: extract 30",
		"Complete iterations:    10000 (30 failed: ended by a failed step)",
		"Iterations per second:  997.00 [#/sec] (succeeded)",
		"Time per iteration:     p50 8.89, p99 11.89",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	// An open-model case has no workers to report.
	if strings.Contains(out, "Concurrency Level:      0") {
		t.Error("summary reports concurrency 0 for the open-model case")
	}
}

func TestConsoleSummaryQuiet(t *testing.T) {
	out := consoleSummaries(t, ConsoleOptions{Quiet: true})
	golden(t, "console-quiet.golden.txt", []byte(out))
	if strings.Contains(out, "Connection Times") {
		t.Error("quiet summary prints the ab block")
	}
	for _, want := range []string{
		"hello-slo / paced: 29,889 requests, 1,992.6 rps, 0 failed, 111 dropped, p99",
		"hello-slo / repeated: 148,700 requests, 4,920.0 rps (median of 3 trials, CV 2.6%), 0 failed, p99",
		"shop-api / shop: 29,940 requests, 2,991.0 rps, 30 failed, p99 5.88ms, 10,000 iterations (997.0/s), iteration p99 11.9ms",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("quiet summary lacks %q:\n%s", want, out)
		}
	}
}

// TestConsoleSummaryWithoutScenario is `loadgate report` on a results file:
// the scenario's max_in_flight is unknown and must be left out, not shown
// as 0.
func TestConsoleSummaryWithoutScenario(t *testing.T) {
	slo, verdicts := sloResult()
	slo.Scenario = nil
	var b bytes.Buffer
	NewConsole(&b, ConsoleOptions{}).Summary(slo, verdicts)
	out := b.String()
	if strings.Contains(out, "Max in flight") {
		t.Errorf("summary invents a max_in_flight:\n%s", out)
	}
	if !strings.Contains(out, "Rate:                   2000/s requested") {
		t.Errorf("summary lacks the rate:\n%s", out)
	}
}

// clock is a settable clock for pacing tests.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func snap(elapsed time.Duration, completed int64) results.Snapshot {
	return results.Snapshot{
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
	res := &results.PhaseResult{Name: "measured", Elapsed: 12 * time.Second, Latency: results.NewHistogram()}
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

// TestConsoleTrialLabel checks that a repeated phase's trial, which the
// runner appends to the phase name, reaches every progress line.
func TestConsoleTrialLabel(t *testing.T) {
	s := snap(2*time.Second, 16000)
	s.Phase = "measured (trial 2/3)"
	const label = "hello-http / keepalive concurrency=10 / measured (trial 2/3)"
	for name, opts := range map[string]ConsoleOptions{"tty": {TTY: true}, "plain": {}} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			c := NewConsole(&b, opts)
			c.PhaseStarted(s)
			c.Progress(s)
			res := &results.PhaseResult{Name: "measured", Elapsed: 10 * time.Second, Latency: results.NewHistogram()}
			res.Requests = 49200
			c.PhaseDone(s, res)
			out := b.String()
			if name == "tty" && !strings.Contains(out, label+"  2s/30s") {
				t.Errorf("live line lacks the trial:\n%q", out)
			}
			if !strings.Contains(out, label+": done, 49,200 requests in 10.00s, 4,920.0 rps") {
				t.Errorf("done line lacks the trial:\n%q", out)
			}
		})
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
		s      results.Snapshot
		want   time.Duration
		wantOK bool
	}{
		{"duration only", results.Snapshot{Elapsed: 10 * time.Second, Planned: 30 * time.Second}, 20 * time.Second, true},
		{"overran its duration", results.Snapshot{Elapsed: 31 * time.Second, Planned: 30 * time.Second}, 0, true},
		{"requests at the current rate", results.Snapshot{Completed: 1000, Target: 5000, RPS: 1000}, 4 * time.Second, true},
		{"requests, rate unknown yet", results.Snapshot{Completed: 0, Target: 5000}, 0, false},
		{"requests come first", results.Snapshot{Elapsed: time.Second, Planned: time.Minute, Completed: 1000, Target: 3000, RPS: 1000}, 2 * time.Second, true},
		{"duration comes first", results.Snapshot{Elapsed: 9 * time.Second, Planned: 10 * time.Second, Completed: 1000, Target: 1e6, RPS: 1000}, time.Second, true},
		{"no limit", results.Snapshot{Elapsed: time.Second, RPS: 10}, 0, false},
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

// TestPhaseFiguresTrials checks the one-line form of a phase run in trials,
// printed when a case has several measured phases: its rps must be the
// median the rules and the ab block quote, not the pooled rate.
func TestPhaseFiguresTrials(t *testing.T) {
	got := phaseFigures(trialsPhase(t0, 10, sloTrialRPS))
	want := "148,700 requests in 30.00s (3 trials), 4,920.0 rps (median), 0 failed, p99 16.6ms"
	if got != want {
		t.Errorf("phaseFigures = %q\nwant           %q", got, want)
	}
}
