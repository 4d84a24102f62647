// Command capacitytruth measures the true capacity of the built-in server's
// capacity model ("loadgate serve --capacity N"), so that what a capacity
// search finds can be compared with it. For each N it starts the built-in
// server with that capacity on 127.0.0.1, then saturates it in the closed
// model (every worker sends its next request as soon as the last one is
// answered) at each concurrency of -concurrency, after a warm-up, and prints
// the throughput achieved: above the pool's size the throughput stops
// growing, and that plateau is the capacity. Latency grows instead, to about
// concurrency/N. The throughput is read twice: as loadgate counted it over
// the phase, and as the server counted it (/stats capacity.served) inside the
// phase, away from its edges, where workers start and in-flight requests are
// abandoned; the plateau is the highest of the server's figures.
//
//	go run ./bench/capacitytruth                                  # N = 2000, 5000, 10000
//	go run ./bench/capacitytruth -capacities 5000 -concurrency 128,512,2048 -duration 10s
//	go run ./bench/capacitytruth -url http://127.0.0.1:8080/ -capacities 5000  # a server you started
//
// With -url only one capacity is accepted, as the label of that server.
// Only loopback URLs are accepted.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/bench/internal/host"
	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "capacitytruth:", err)
		os.Exit(1)
	}
}

type options struct {
	capacities  []float64
	concurrency []int
	duration    time.Duration
	warmup      time.Duration
	url         string
}

func parse(args []string) (options, error) {
	fs := flag.NewFlagSet("capacitytruth", flag.ContinueOnError)
	caps := fs.String("capacities", "2000,5000,10000", "comma-separated capacities N (req/s) of the built-in server")
	conc := fs.String("concurrency", "256,1024", "comma-separated closed-model concurrencies, each above the pool's size")
	var o options
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "measured time at each concurrency")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured warm-up before each measurement")
	fs.StringVar(&o.url, "url", "", "loopback URL of a server already running with --capacity (default: start one in-process)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, f := range strings.Split(*caps, ",") {
		n, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("-capacities: bad capacity %q", f)
		}
		o.capacities = append(o.capacities, n)
	}
	for _, f := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return o, fmt.Errorf("-concurrency: bad concurrency %q", f)
		}
		o.concurrency = append(o.concurrency, n)
	}
	if o.url != "" {
		if len(o.capacities) != 1 {
			return o, errors.New("-url measures one server: give its capacity alone in -capacities")
		}
		if err := host.RequireLoopback(o.url); err != nil {
			return o, err
		}
	}
	if o.duration <= 0 || o.warmup < 0 {
		return o, errors.New("-duration must be positive and -warmup not negative")
	}
	return o, nil
}

func run(ctx context.Context, args []string) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	load0 := loadavg()
	fmt.Printf("closed model, warm-up %v then %v measured per concurrency\n\n", o.warmup, o.duration)
	fmt.Println("| capacity N | workers × service time | concurrency | loadgate rps | server rps | server/N | errors | 503 | latency p50 | p99 | generator |")
	fmt.Println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	var summary []string
	for _, n := range o.capacities {
		plateau, err := measureCapacity(ctx, o, n)
		if err != nil {
			return err
		}
		summary = append(summary, fmt.Sprintf("N = %.0f: plateau %.0f req/s (%.1f%% of N)", n, plateau, 100*plateau/n))
	}
	fmt.Println()
	for _, s := range summary {
		fmt.Println(s)
	}
	fmt.Printf("load average before %s, after %s on %d cores: a busy machine delays the server's\n"+
		"timers and hand-offs past the 50 ms a worker may make up, and the plateau falls below N\n", load0, loadavg(), runtime.NumCPU())
	return nil
}

// loadavg returns the 1-minute load average, or "?" where /proc is missing.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// measureCapacity measures one capacity at every concurrency and returns the
// plateau: the highest of the server-side throughputs. The highest, not the
// median, because the model cannot go above N by more than its catch-up
// allows (50 ms of work, about 1 % of a 4 s window) while a busy machine
// can pull any one measurement far below it.
func measureCapacity(ctx context.Context, o options, n float64) (float64, error) {
	target, model := o.url, "external"
	var srv *demoserver.Server
	if target == "" {
		var err error
		srv, err = demoserver.Start(ctx, demoserver.Config{HTTPAddr: "127.0.0.1:0", Capacity: n})
		if err != nil {
			return 0, err
		}
		defer srv.Close()
		target = "http://" + srv.HTTPAddr() + "/"
		st := srv.Stats().Capacity
		model = fmt.Sprintf("%d × %v", st.Workers, st.ServiceTime)
	}
	var rates []float64
	for _, c := range o.concurrency {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		var before int64
		if srv != nil {
			st := srv.Stats().Capacity
			if c > st.Queue+st.Workers {
				// Some of its requests would be refused 503: not a plateau.
				fmt.Printf("| %.0f | %s | %d | skipped: above queue %d + workers %d |\n", n, model, c, st.Queue, st.Workers)
				continue
			}
			before = st.Rejected
		}
		served := make(chan float64, 1)
		go func() { served <- serverRate(ctx, target, o.warmup, o.duration) }()
		p, err := measure(ctx, target, c, o.warmup, o.duration)
		if err != nil {
			return 0, err
		}
		inside := <-served
		rejected := "n/a"
		if srv != nil {
			rejected = strconv.FormatInt(srv.Stats().Capacity.Rejected-before, 10)
		}
		achieved := float64(p.Succeeded) / p.Elapsed.Seconds()
		rates = append(rates, inside)
		gen := fmt.Sprintf("cpu %.0f%%", 100*p.Generator.CPU)
		if p.Generator.Saturated {
			gen += " saturated: " + p.Generator.Reason
		}
		fmt.Printf("| %.0f | %s | %d | %.0f | %.0f | %.1f%% | %d | %s | %s | %s | %s |\n",
			n, model, c, achieved, inside, 100*inside/n, p.Failed, rejected,
			ms(p.Latency.Quantile(50)), ms(p.Latency.Quantile(99)), gen)
	}
	if len(rates) == 0 {
		return math.NaN(), nil
	}
	return slices.Max(rates), nil
}

// serverRate returns the rate at which the server behind target served
// requests (its /stats capacity.served) between 0.5 s after the measured
// phase began and 0.5 s before it ended: the inside of the phase, free of the
// edges where loadgate's workers start and stop, and of what the client
// counts. NaN when /stats cannot be read or has no capacity model.
func serverRate(ctx context.Context, target string, warmup, d time.Duration) float64 {
	edge := min(500*time.Millisecond, d/4)
	if !sleep(ctx, warmup+edge) {
		return math.NaN()
	}
	n0, t0 := served(ctx, target)
	if !sleep(ctx, d-2*edge) {
		return math.NaN()
	}
	n1, t1 := served(ctx, target)
	if n0 < 0 || n1 < 0 {
		return math.NaN()
	}
	return float64(n1-n0) / t1.Sub(t0).Seconds()
}

// served reads capacity.served from target's /stats, and when; -1 on error.
func served(ctx context.Context, target string) (int64, time.Time) {
	u, err := url.JoinPath(target, "/stats")
	if err != nil {
		return -1, time.Time{}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return -1, time.Time{}
	}
	resp, err := http.DefaultClient.Do(req)
	now := time.Now()
	if err != nil {
		return -1, now
	}
	defer resp.Body.Close()
	var st struct{ Capacity *demoserver.CapacityStats }
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.Capacity == nil {
		return -1, now
	}
	return st.Capacity.Served, now
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// measure runs a warm-up and a measured closed-model phase at concurrency c
// and returns the measured one.
func measure(ctx context.Context, target string, c int, warmup, d time.Duration) (*results.PhaseResult, error) {
	tg := scenarios.Target{Name: "target", HTTP: &scenarios.HTTPTarget{
		Requests:  []scenarios.HTTPRequest{{Method: "GET", URL: target, Weight: 1}},
		Keepalive: true, Timeout: 10 * time.Second, MaxBody: 10 << 20,
		Expect: scenarios.Expect{Length: -1},
	}}
	var phases []scenarios.Phase
	if warmup > 0 {
		phases = append(phases, scenarios.Phase{Name: "warmup", Warmup: true, Concurrency: c, Duration: warmup, Trials: 1,
			GracefulStop: scenarios.DefaultGracefulStop})
	}
	phases = append(phases, scenarios.Phase{Name: "saturate", Concurrency: c, Duration: d, Trials: 1,
		GracefulStop: scenarios.DefaultGracefulStop})
	sc := &scenarios.Scenario{Name: "capacitytruth", Targets: []scenarios.Target{tg},
		Cases: []scenarios.Case{{ID: "target", Target: tg, Phases: phases}}}
	res, err := runner.Run(ctx, sc, runner.Config{})
	if err != nil {
		return nil, err
	}
	ph := res.Cases[0].Phases
	return ph[len(ph)-1], nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }
