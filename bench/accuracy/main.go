// Command accuracy measures, in real time, what go test cannot assert on a
// shared machine: that loadgate's figures match a server whose behaviour is
// known. It starts the built-in server (internal/demoserver) on loopback for
// each case, runs bounded phases through the runner package and prints a
// Markdown table: case, expected, measured, bound, verdict.
//
//	go run ./bench/accuracy                 # every case
//	go run ./bench/accuracy -attempts 5     # more re-measurements on a busy machine
//
// A measurement taken while the machine was too busy says nothing about
// loadgate: when the generator reports itself saturated, loadgate used most
// of its CPU, or other processes used more than -busy of the machine's CPU,
// the table says so and the case is measured again, up to -attempts times.
// A case that never got a quiet measurement is reported "machine too busy:
// not judged" — neither passed nor failed.
//
// Exit status: 0 every case passed; 1 a bound failed on a quiet machine;
// 2 the program could not run (bad flag, server did not start); 3 nothing
// failed but at least one case was not judged (machine too busy).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/loadgate/loadgate/bench/internal/host"
	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
)

// Exit statuses, documented in the package comment and the README.
const (
	exitPass      = 0
	exitFail      = 1
	exitError     = 2
	exitNotJudged = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	attempts int
	busy     float64
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("accuracy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.attempts, "attempts", 3, "measurements of a case at most, when the machine is too busy to judge")
	fs.Float64Var(&o.busy, "busy", 0.2, "share of the machine's CPU other processes may use during a quiet measurement")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if o.attempts < 1 || o.busy <= 0 || o.busy > 1 {
		fmt.Fprintln(stderr, "accuracy: -attempts must be ≥ 1 and -busy in (0, 1]")
		return exitError
	}
	fmt.Fprintln(stdout, "| case | expected | measured | bound | verdict |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|")
	failed, notJudged := 0, 0
	for _, c := range cases() {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "accuracy: interrupted")
			return exitError
		}
		f, nj, err := judgeCase(ctx, c, o, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "accuracy: %s: %v\n", c.name, err)
			return exitError
		}
		failed += f
		notJudged += nj
	}
	switch {
	case failed > 0:
		fmt.Fprintf(stdout, "\n%d check(s) failed.\n", failed)
		return exitFail
	case notJudged > 0:
		fmt.Fprintf(stdout, "\nmachine too busy: %d check(s) not judged (exit %d).\n", notJudged, exitNotJudged)
		return exitNotJudged
	}
	fmt.Fprintln(stdout, "\nevery check passed.")
	return exitPass
}

// judgeCase measures c until a quiet measurement (or attempts run out) and
// prints its rows; it returns the failed and the unjudged checks.
func judgeCase(ctx context.Context, c benchCase, o options, w io.Writer) (failed, notJudged int, err error) {
	srv, err := demoserver.Start(ctx, withLoopback(c.server))
	if err != nil {
		return 0, 0, err
	}
	defer srv.Close()
	url := "http://" + srv.HTTPAddr() + "/"
	for attempt := 1; ; attempt++ {
		p, others, err := measure(ctx, url, c.phase)
		if err != nil {
			return 0, 0, err
		}
		busy := tooBusy(p, others, o.busy, c.judgesGenerator)
		if busy != "" && attempt < o.attempts {
			fmt.Fprintf(w, "| %s | | %s | | machine busy: measured again (%d/%d) |\n", c.name, busy, attempt, o.attempts)
			continue
		}
		checks := c.checks
		if p.Failed > 0 {
			checks = append([]check{failedRequests}, checks...)
		}
		for _, ch := range checks {
			measured, ok := ch.measure(p)
			verdict := "✅ pass"
			switch {
			case busy != "":
				verdict = "⚠️ machine too busy: not judged (" + busy + ")"
				notJudged++
			case !ok:
				verdict = "❌ FAIL"
				failed++
			}
			fmt.Fprintf(w, "| %s: %s | %s | %s | %s | %s |\n", c.name, ch.name, ch.expected, measured, ch.bound, verdict)
		}
		return failed, notJudged, nil
	}
}

func withLoopback(cfg demoserver.Config) demoserver.Config {
	cfg.HTTPAddr = "127.0.0.1:0"
	return cfg
}

// measure runs one phase against url and returns it with the share of the
// machine's CPU that other processes used meanwhile (-1: unknown).
func measure(ctx context.Context, url string, ph scenarios.Phase) (*results.PhaseResult, float64, error) {
	ph.Trials = max(ph.Trials, 1)
	// As a scenario's phase has by default: the requests in flight at the
	// end are answered, not given up.
	ph.GracefulStop = scenarios.DefaultGracefulStop
	tg := scenarios.Target{Name: "demoserver", HTTP: &scenarios.HTTPTarget{
		Requests:  []scenarios.HTTPRequest{{Method: "GET", URL: url, Weight: 1}},
		Keepalive: true, Timeout: 10 * time.Second, MaxBody: 1 << 20, Expect: scenarios.Expect{Length: -1},
	}}
	sc := &scenarios.Scenario{Name: "accuracy", Targets: []scenarios.Target{tg},
		Cases: []scenarios.Case{{ID: ph.Name, Target: tg, Phases: []scenarios.Phase{ph}}}}
	var clock runner.WallClock
	host0, hostOK0 := host.ReadCPU()
	own0, wall0 := clock.CPU(), clock.Now()
	res, err := runner.Run(ctx, sc, runner.Config{})
	if err != nil {
		return nil, 0, fmt.Errorf("phase %s: %w", ph.Name, err)
	}
	if len(res.Cases) == 0 || len(res.Cases[0].Phases) == 0 {
		return nil, 0, fmt.Errorf("phase %s: no result", ph.Name)
	}
	others := -1.0
	if host1, hostOK1 := host.ReadCPU(); hostOK0 && hostOK1 {
		others = host1.OthersShare(host0, clock.CPU()-own0, clock.Since(wall0))
	}
	return res.Cases[0].Phases[0], others, nil
}

// tooBusy says why a measurement cannot judge loadgate, or "" if it can.
// When the case judges the generator itself, its saturation on an otherwise
// quiet machine is a finding, not noise.
func tooBusy(p *results.PhaseResult, others, limit float64, judgesGenerator bool) string {
	switch {
	case others > limit:
		return fmt.Sprintf("other processes used %.0f%% of the CPU", 100*others)
	case p.Generator.Saturated && !judgesGenerator:
		return "generator saturated: " + p.Generator.Reason
	case p.Generator.CPU >= 0.9:
		return fmt.Sprintf("loadgate used %.0f%% of its CPU", 100*p.Generator.CPU)
	}
	return ""
}
