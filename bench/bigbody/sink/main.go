// Command sink serves HTTP/1.1 and cleartext HTTP/2 (h2c, prior
// knowledge) on one loopback address and answers every request 204 once
// it has read and dropped the whole body: the server of bench/bigbody.sh,
// which measures what sending a large body costs the client alone, so
// the server must neither keep the body nor send it back.
//
//	go run ./bench/bigbody/sink -addr 127.0.0.1:8091
//
// It prints one line when it listens and stops on SIGINT or SIGTERM. Only
// loopback addresses are accepted.
package main

import (
	"context"
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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sink:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sink", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8091", "loopback address to listen on")
	if err := fs.Parse(args); err != nil {
		return err
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
	var protos http.Protocols
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	hs := &http.Server{
		Handler:           http.HandlerFunc(drain),
		Protocols:         &protos,
		ReadHeaderTimeout: 10 * time.Second,
		// Large windows, so that 10 MiB streams are not held back by
		// flow control more than the client's own sending is.
		HTTP2: &http.HTTP2Config{MaxReceiveBufferPerConnection: 64 << 20, MaxReceiveBufferPerStream: 16 << 20},
	}
	fmt.Fprintf(stdout, "sink: http://%s/ (HTTP/1.1 and h2c)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}

// drain reads the request body to its end, keeping none of it, and
// answers 204; a body cut short is answered 400.
func drain(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
