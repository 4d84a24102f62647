// Command harrecord records the HAR files importers/har's tests import:
// it serves the shop of internal/testpeer and loadgate's built-in server
// on loopback and runs record.mjs, which drives Debian's Chromium
// (/usr/bin/chromium) through the DevTools protocol with playwright-core.
//
//	(cd bench/harrecord && npm install)   # playwright-core, no browser download
//	go run ./bench/harrecord              # writes importers/har/testdata/*.har
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/internal/testpeer"
)

func main() {
	out := flag.String("out", filepath.Join("importers", "har", "testdata"), "directory the HAR files are written to")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium to drive")
	flag.Parse()
	if err := run(*out, *chromium); err != nil {
		fmt.Fprintln(os.Stderr, "harrecord:", err)
		os.Exit(1)
	}
}

func run(out, chromium string) error {
	var hits atomic.Int64
	beacon, err := serve(testpeer.Beacon(&hits))
	if err != nil {
		return err
	}
	defer beacon.Close()
	shop, err := serve(testpeer.NewShop("http://" + beacon.Addr().String()))
	if err != nil {
		return err
	}
	defer shop.Close()
	demo, err := demoserver.Start(context.Background(), demoserver.Config{HTTPAddr: "127.0.0.1:0", Seed: 1})
	if err != nil {
		return err
	}
	defer demo.Close()
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := filepath.Join("bench", "harrecord", "record.mjs")
	cmd := exec.CommandContext(ctx, "node", script, "http://"+shop.Addr().String(), "http://"+demo.HTTPAddr(), abs, chromium)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("node %s: %w", script, err)
	}
	if hits.Load() == 0 {
		return errors.New("the dashboard sent no beacon to the third-party origin")
	}
	for _, name := range []string{"shop.har", "builtin-api.har"} {
		if err := indent(filepath.Join(abs, name)); err != nil {
			return err
		}
	}
	return nil
}

// indent rewrites a HAR file with one field a line, as the browsers'
// "Save all as HAR" does, so that a test can point at a line of it.
func indent(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	buf.WriteByte('\n')
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// server is a loopback HTTP server on a port of its own.
type server struct {
	ln  net.Listener
	srv *http.Server
}

func serve(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *server) Addr() net.Addr { return s.ln.Addr() }
func (s *server) Close() error   { return s.srv.Close() }
