// Command rateaccuracy measures how well loadgate's open model keeps its
// schedule: for each requested rate it runs one open-model phase against a
// loopback server and prints requested vs achieved rate, dropped arrivals
// and the send-time error (actual − scheduled send) percentiles.
//
//	go run ./bench/rateaccuracy                          # built-in server, in-process
//	go run ./bench/rateaccuracy -url http://127.0.0.1:8080/ -rates 1000,5000,20000
//
// Only loopback URLs are accepted.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rateaccuracy:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rateaccuracy", flag.ContinueOnError)
	target := fs.String("url", "", "loopback URL to load (default: an in-process built-in server)")
	ratesFlag := fs.String("rates", "500,1000,2000,5000,10000,20000,40000", "comma-separated requested rates (req/s)")
	duration := fs.Duration("duration", 5*time.Second, "length of each phase")
	maxInFlight := fs.Int("max-in-flight", 256, "open-model cap on outstanding requests")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var rates []float64
	for _, f := range strings.Split(*ratesFlag, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r <= 0 {
			return fmt.Errorf("-rates: bad rate %q", f)
		}
		rates = append(rates, r)
	}
	if *target == "" {
		srv, err := demoserver.Start(ctx, demoserver.Config{HTTPAddr: "127.0.0.1:0"})
		if err != nil {
			return err
		}
		defer srv.Close()
		*target = "http://" + srv.HTTPAddr() + "/"
	}
	if err := requireLoopback(*target); err != nil {
		return err
	}

	fmt.Printf("open model, %v per rate, max_in_flight %d, target %s\n\n", *duration, *maxInFlight, *target)
	fmt.Println("| requested rps | achieved rps | achieved/requested | dropped | errors | send error p50 | p99 | max | latency p50 | p99 |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rates {
		if ctx.Err() != nil {
			break
		}
		p, err := measure(ctx, *target, r, *duration, *maxInFlight)
		if err != nil {
			return err
		}
		achieved := float64(p.Requests) / p.Elapsed.Seconds()
		fmt.Printf("| %.0f | %.1f | %.2f%% | %d | %d | %s | %s | %s | %s | %s |\n",
			r, achieved, 100*achieved/r, p.Dropped, p.Failed,
			ms(p.SendLag.Quantile(50)), ms(p.SendLag.Quantile(99)), ms(p.SendLag.Max()),
			ms(p.Latency.Quantile(50)), ms(p.Latency.Quantile(99)))
	}
	return nil
}

func measure(ctx context.Context, target string, rate float64, d time.Duration, maxInFlight int) (*runner.PhaseResult, error) {
	tg := scenarios.Target{Name: "target", HTTP: &scenarios.HTTPTarget{
		Requests:  []scenarios.HTTPRequest{{Method: "GET", URL: target, Weight: 1}},
		Keepalive: true, Timeout: 5 * time.Second, MaxBody: 10 << 20,
		Expect: scenarios.Expect{Length: -1},
	}}
	ph := scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: rate, To: rate}, Duration: d, MaxInFlight: maxInFlight, Trials: 1}
	sc := &scenarios.Scenario{Name: "rateaccuracy", Targets: []scenarios.Target{tg},
		Cases: []scenarios.Case{{ID: "target", Target: tg, Phases: []scenarios.Phase{ph}}}}
	res, err := runner.Run(ctx, sc, runner.Config{})
	if err != nil {
		return nil, err
	}
	return res.Cases[0].Phases[0], nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }

func requireLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-url %s: only loopback targets are allowed", raw)
}
