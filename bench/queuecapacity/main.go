// Command queuecapacity checks what a capacity search finds against a
// server with an unbounded queue (internal/queueserver: K workers of a
// fixed service time, never 503) beside that server's saturated
// throughput as wrk measures it. It starts the server on a loopback
// address, runs wrk -runs times (if wrk is installed), then runs
// bench/queuecapacity/scenario.yaml with loadgate -runs times, restarting
// the server between runs so that none starts behind another's backlog,
// and prints each search's probes and its capacity as a share of wrk's
// mean.
//
//	go run ./bench/queuecapacity                                   # 4 workers × 4 ms ≈ 1000/s
//	go run ./bench/queuecapacity -loadgate /tmp/loadgate -runs 5 -slo 'p99 < 100ms && error_rate < 0.1%'
//
// Only loopback addresses are accepted.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/loadgate/loadgate/internal/queueserver"
	"github.com/loadgate/loadgate/results"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "queuecapacity:", err)
		os.Exit(1)
	}
}

type options struct {
	addr, loadgate, scenario, slo string
	workers, runs                 int
	service, wrkDuration          time.Duration
}

func parse(args []string) (options, error) {
	fs := flag.NewFlagSet("queuecapacity", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8090", "loopback address for the queue server")
	fs.IntVar(&o.workers, "workers", 4, "the server's workers")
	fs.DurationVar(&o.service, "service", 4*time.Millisecond, "the server's service time per request")
	fs.IntVar(&o.runs, "runs", 3, "wrk runs, and capacity searches")
	fs.DurationVar(&o.wrkDuration, "wrk-duration", 5*time.Second, "each wrk run's duration (wrk -t1 -c50)")
	fs.StringVar(&o.loadgate, "loadgate", "", "loadgate binary (default: go build ./cmd/loadgate)")
	fs.StringVar(&o.scenario, "scenario", "bench/queuecapacity/scenario.yaml", "the capacity-search scenario; its var host is set to -addr")
	fs.StringVar(&o.slo, "slo", "", "the search's SLO, as the scenario's var slo (default: the scenario's)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	host, _, err := net.SplitHostPort(o.addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return o, fmt.Errorf("-addr %s: only loopback addresses are served", o.addr)
	}
	if o.workers < 1 || o.service <= 0 || o.runs < 1 {
		return o, errors.New("-workers and -runs must be ≥ 1, -service > 0")
	}
	return o, nil
}

func run(ctx context.Context, args []string, w io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	if o.loadgate == "" {
		dir, err := os.MkdirTemp("", "queuecapacity")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.loadgate = filepath.Join(dir, "loadgate")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", o.loadgate, "./cmd/loadgate").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/loadgate: %v\n%s", err, out)
		}
	}
	fmt.Fprintf(w, "server: %d workers × %v, unbounded queue: K/service = %.0f/s\n", o.workers, o.service, float64(o.workers)/o.service.Seconds())
	wrkMean, err := wrkRuns(ctx, o, w)
	if err != nil {
		return err
	}
	for i := range o.runs {
		c, err := searchRun(ctx, o, w, i+1)
		if err != nil {
			return err
		}
		if wrkMean > 0 {
			fmt.Fprintf(w, "search %d: capacity %.1f/s = %.1f%% of wrk's %.1f/s\n", i+1, c, 100*c/wrkMean, wrkMean)
		}
	}
	return nil
}

// serve runs a fresh queue server until the returned stop is called; stop
// returns its final counters.
func serve(o options) (stop func() queueserver.Stats, err error) {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	qs := queueserver.New(ctx, o.workers, o.service)
	hs := &http.Server{Handler: qs, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return func() queueserver.Stats {
		st := qs.Stats()
		cancel()
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = hs.Shutdown(sctx)
		return st
	}, nil
}

var wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// wrkRuns measures the server's saturated throughput with wrk, each run
// against a fresh server; it returns their mean, 0 without wrk.
func wrkRuns(ctx context.Context, o options, w io.Writer) (float64, error) {
	if _, err := exec.LookPath("wrk"); err != nil {
		fmt.Fprintln(w, "wrk: not installed (apt-get install -y wrk); no saturated throughput to compare with")
		return 0, nil
	}
	var sum float64
	for i := range o.runs {
		stop, err := serve(o)
		if err != nil {
			return 0, err
		}
		out, err := exec.CommandContext(ctx, "wrk", "-t1", "-c50", "-d"+o.wrkDuration.String(), "http://"+o.addr+"/").Output()
		st := stop()
		if err != nil {
			return 0, fmt.Errorf("wrk: %v", err)
		}
		m := wrkRate.FindSubmatch(out)
		if m == nil {
			return 0, fmt.Errorf("wrk printed no Requests/sec:\n%s", out)
		}
		r, _ := strconv.ParseFloat(string(m[1]), 64)
		sum += r
		fmt.Fprintf(w, "wrk %d: %.1f req/s (server received %d, answered %d)\n", i+1, r, st.Received, st.Answered)
	}
	return sum / float64(o.runs), nil
}

// searchRun runs the scenario's capacity search once against a fresh
// server and prints its probes; it returns the capacity found.
func searchRun(ctx context.Context, o options, w io.Writer, n int) (float64, error) {
	dir, err := os.MkdirTemp("", "queuecapacity")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "results.json")
	args := []string{"run", "--no-progress", "--quiet", "-o", "", "--json", out, "--var", "host=" + o.addr}
	if o.slo != "" {
		args = append(args, "--var", "slo="+o.slo)
	}
	stop, err := serve(o)
	if err != nil {
		return 0, err
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, o.loadgate, append(args, o.scenario)...)
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	st := stop()
	s, err := readSearch(out)
	if err != nil {
		return 0, fmt.Errorf("search %d: %v (loadgate: %v %s)", n, err, runErr, stderr.Bytes())
	}
	fmt.Fprintf(w, "search %d: %s; server received %d, answered %d, %d of them after their client left\n",
		n, s.Reason, st.Received, st.Answered, st.Gone)
	for _, p := range s.Probes {
		verdict := "fail"
		if p.Passed {
			verdict = "pass"
		}
		drain := ""
		if p.Drain != nil {
			drain = fmt.Sprintf("pause %v, %s", p.Drain.Pause.Round(time.Millisecond), p.Drain.Note)
		}
		fmt.Fprintf(w, "  %-8s %7.1f/s achieved %7.1f/s p50 %8v p99 %8v %s left %d %s\n", p.Kind, p.Rate, p.Achieved,
			p.P50.Round(time.Microsecond*100), p.P99.Round(time.Microsecond*100), verdict, p.Left, drain)
	}
	return s.Capacity, nil
}

// readSearch is the search of the first phase of the first case in the
// results.json at path.
func readSearch(path string) (*results.SearchResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Scenarios []struct {
			Cases []struct {
				Phases []struct {
					Search *results.SearchResult `json:"search"`
				} `json:"phases"`
			} `json:"cases"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	for _, sc := range doc.Scenarios {
		for _, c := range sc.Cases {
			for _, p := range c.Phases {
				if p.Search != nil {
					return p.Search, nil
				}
			}
		}
	}
	return nil, errors.New("no search phase in the results")
}
