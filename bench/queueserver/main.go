// Command queueserver serves HTTP/1.1 (keep-alive) on a loopback address
// through K workers of a fixed service time behind an unbounded FIFO queue
// that never answers 503 (internal/queueserver): a server whose saturated
// throughput is known, K/service, and whose backlog outlives an
// overloading load, as Tomcat's or an asyncio server's does.
//
//	go run ./bench/queueserver -addr 127.0.0.1:8090 -workers 4 -service 4ms   # ≈ 1000 req/s
//	curl -s http://127.0.0.1:8090/stats
//
// It prints its counters (received, answered, gone, waiting) when stopped
// with SIGINT or SIGTERM. Only loopback addresses are accepted.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/loadgate/loadgate/internal/queueserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "queueserver:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("queueserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8090", "loopback address to listen on")
	workers := fs.Int("workers", 4, "workers, each serving one request at a time")
	service := fs.Duration("service", 4*time.Millisecond, "each request's service time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *workers < 1 || *service <= 0 {
		return errors.New("-workers must be ≥ 1 and -service > 0")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %s: only loopback addresses are served", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srvCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	qs := queueserver.New(srvCtx, *workers, *service)
	hs := &http.Server{Handler: qs, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "queueserver: http://%s/ %d workers × %v: capacity %.0f req/s, unbounded queue\n",
		ln.Addr(), *workers, *service, qs.Capacity())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	cancel() // answers what still waits, so Shutdown is not held up by it
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = hs.Shutdown(sctx)
	st, _ := json.Marshal(qs.Stats())
	fmt.Fprintf(stdout, "queueserver: stats %s\n", st)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
