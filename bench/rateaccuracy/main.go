// Command rateaccuracy measures how well loadgate's open model keeps its
// schedule, at rates relative to what the generator and the server can do
// together. It first measures the closed-model maximum (keep-alive, -c
// connections) against the server, then runs one open-model phase at each
// share of it (-shares, default 10 %, 25 % and 50 %) and prints a Markdown
// table: requested and achieved rate, the send-time error (actual −
// scheduled send) p50/p99/max, the latency, and the generator's CPU.
//
//	go run ./bench/rateaccuracy                    # built-in server in a child process
//	go run ./bench/rateaccuracy -url http://127.0.0.1:8080/ -shares 0.1,0.5
//
// With two cores or more, the built-in server runs on core 0 and the
// generator on the others (-pin=false shares them all), as bench/compare.sh
// pins nginx and the tools: the server's threads would otherwise take the
// generator's core in bursts, and the send-time error would measure the
// kernel's run queue as much as the generator.
//
// Every row is judged against the bounds (-p50, -p99, -rate-error): the
// send-time error p50 under 50 µs and p99 under 1 ms, the achieved rate
// within 1 % of the requested one. As in bench/accuracy, a measurement
// taken while other processes used more than -busy of the machine's CPU
// says nothing about loadgate: the row is measured again, up to -attempts
// times, and then reported "machine too busy: not judged". A generator
// that falls behind on a quiet machine is a finding, not noise.
//
// Exit status: 0 every row passed; 1 a bound failed on a quiet machine;
// 2 the program could not run; 3 nothing failed but some row was not
// judged (machine too busy). Only loopback URLs are accepted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/bench/internal/host"
)

// Exit statuses, as bench/accuracy's.
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

// options are the program's flags.
type options struct {
	url         string
	serveChild  bool
	pin         bool
	delay       time.Duration
	conns       int
	duration    time.Duration
	warmup      time.Duration
	shares      []float64
	rates       []float64 // absolute rates instead of shares
	maxInFlight int
	attempts    int
	busy        float64
	p50, p99    time.Duration
	rateError   float64
	trace       string
	cpuProfile  string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("rateaccuracy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.url, "url", "", "loopback URL to load (default: the built-in server, started in a child process)")
	fs.BoolVar(&o.serveChild, "serve", false, "run as the built-in server (used by this program itself)")
	fs.DurationVar(&o.delay, "delay", 0, "the built-in server's response delay")
	fs.BoolVar(&o.pin, "pin", true, "with 2 cores or more, run the built-in server on core 0 and the generator on the others, as bench/compare.sh pins nginx and the tools")
	fs.IntVar(&o.conns, "c", 50, "connections of the closed-model maximum")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "length of each measured phase")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "warm-up before each measured phase")
	sharesFlag := fs.String("shares", "0.1,0.25,0.5", "open-model rates, as shares of the closed-model maximum")
	ratesFlag := fs.String("rates", "", "open-model rates in req/s instead of -shares (to compare builds at the same rates)")
	fs.IntVar(&o.maxInFlight, "max-in-flight", 256, "open-model cap on outstanding requests")
	fs.IntVar(&o.attempts, "attempts", 3, "measurements of a rate at most, when the machine is too busy to judge")
	fs.Float64Var(&o.busy, "busy", 0.2, "share of the machine's CPU other processes may use during a quiet measurement")
	fs.DurationVar(&o.p50, "p50", 50*time.Microsecond, "bound on the send-time error p50")
	fs.DurationVar(&o.p99, "p99", time.Millisecond, "bound on the send-time error p99")
	fs.Float64Var(&o.rateError, "rate-error", 0.01, "bound on |achieved − requested| / requested")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the open-model phases to this file (for go tool pprof)")
	fs.StringVar(&o.trace, "trace", "", "write a runtime/trace of the open-model phases to this file (for go tool trace)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.shares, err = positives("-shares", *sharesFlag); err != nil {
		return o, err
	}
	if *ratesFlag != "" {
		if o.rates, err = positives("-rates", *ratesFlag); err != nil {
			return o, err
		}
	}
	if o.attempts < 1 || o.busy <= 0 || o.busy > 1 || o.conns < 1 || o.duration <= 0 {
		return o, fmt.Errorf("-attempts, -c and -duration must be positive and -busy in (0, 1]")
	}
	return o, nil
}

// positives parses a comma-separated list of positive numbers.
func positives(name, list string) ([]float64, error) {
	var xs []float64
	for _, f := range strings.Split(list, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || x <= 0 {
			return nil, fmt.Errorf("%s: bad value %q", name, f)
		}
		xs = append(xs, x)
	}
	return xs, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "rateaccuracy:", err)
		return exitError
	}
	if o.serveChild {
		if err := serve(ctx, o.delay); err != nil {
			fmt.Fprintln(stderr, "rateaccuracy: serve:", err)
			return exitError
		}
		return exitPass
	}
	b := &bench{o: o, serverPID: -1, out: stdout, pinned: "not pinned"}
	if o.url == "" {
		srv, err := startServer(ctx, o.delay)
		if err != nil {
			fmt.Fprintln(stderr, "rateaccuracy:", err)
			return exitError
		}
		defer srv.stop()
		b.url, b.serverPID = "http://"+srv.addr+"/", srv.pid()
		if b.pinned, err = pinApart(o.pin, srv.pid()); err != nil {
			fmt.Fprintln(stderr, "rateaccuracy:", err)
			return exitError
		}
	} else {
		if err := host.RequireLoopback(o.url); err != nil {
			fmt.Fprintln(stderr, "rateaccuracy:", err)
			return exitError
		}
		b.url = o.url
	}
	code, err := b.run(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "rateaccuracy:", err)
		return exitError
	}
	return code
}

// pinApart runs the built-in server (process server) on core 0 and this
// program on the other cores, when asked and there are two or more.
// Unpinned, the server's threads (its garbage collector above all: net/http
// allocates per request) take the generator's core in bursts, and the
// send-time error measures the scheduler's queue as much as the generator.
func pinApart(pin bool, server int) (string, error) {
	n := runtime.NumCPU()
	if !pin || n < 2 {
		return "not pinned", nil
	}
	if err := host.Pin(server, []int{0}); err != nil {
		return "", err
	}
	rest := make([]int, 0, n-1)
	for c := 1; c < n; c++ {
		rest = append(rest, c)
	}
	if err := host.Pin(os.Getpid(), rest); err != nil {
		return "", err
	}
	runtime.GOMAXPROCS(n - 1)
	if n == 2 {
		return "server on core 0, generator on core 1", nil
	}
	return fmt.Sprintf("server on core 0, generator on cores 1-%d", n-1), nil
}
