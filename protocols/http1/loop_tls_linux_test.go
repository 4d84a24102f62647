//go:build linux

package http1

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// newCountingTLSServer is newCountingServer over TLS.
func newCountingTLSServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	return startCountingServer(t, h, true)
}

// insecure trusts the test server's certificate.
func insecure(h *scenarios.HTTPTarget) { h.TLS.InsecureSkipVerify = true }

func TestLoopTLS(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // many records each way
	for _, tc := range []struct {
		name  string
		body  string
		sent  []byte
		every time.Duration
	}{
		{"keep-alive", "hello", nil, 0},
		{"large response", big, nil, 0},
		{"large request", "hello", []byte(big), 0},
		{"open model", "hello", nil, 200 * time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCountingTLSServer(t, func(w http.ResponseWriter, r *http.Request) {
				if n, _ := io.Copy(io.Discard, r.Body); n != int64(len(tc.sent)) {
					w.WriteHeader(http.StatusBadRequest)
				}
				_, _ = io.WriteString(w, tc.body)
			})
			tg := http1Target(srv.URL+"/", func(h *scenarios.HTTPTarget) {
				insecure(h)
				if tc.sent != nil {
					h.Requests[0].Method, h.Requests[0].Body = "POST", tc.sent
				}
			})
			var lt loopTally
			const slots, limit = 4, 200
			runLoop(t, tg, lt.job(slots, limit, tc.every))
			if got := lt.kinds[protocols.KindNone]; got != limit {
				t.Fatalf("%d succeeded of %d (kinds %v, errors %q)", got, limit, lt.kinds, first(lt.errs))
			}
			if lt.statuses[200] != limit || srv.requests.Load() != limit {
				t.Errorf("statuses %v, server served %d, want %d 200s", lt.statuses, srv.requests.Load(), limit)
			}
			if accepts := srv.accepts.Load(); accepts > slots || int64(lt.connects) != accepts {
				t.Errorf("server accepted %d connections, %d requests timed a connect; want at most %d, one each", accepts, lt.connects, slots)
			}
			if n := lt.inFlight.Load(); n != 0 {
				t.Errorf("in flight after the run: %d", n)
			}
		})
	}
}

// TestLoopTLSHandshakeFails: a certificate the target does not trust, and
// a server that speaks no TLS, fail every request as a connect failure
// that names the handshake.
func TestLoopTLSHandshakeFails(t *testing.T) {
	untrusted := newCountingTLSServer(t, hello)
	plain := newCountingServer(t, hello)
	for _, tc := range []struct {
		name, url, want string
	}{
		{"untrusted certificate", untrusted.URL + "/", "certificate"},
		{"no TLS", strings.Replace(plain.URL, "http:", "https:", 1) + "/", "TLS handshake"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lt loopTally
			runLoop(t, http1Target(tc.url, nil), lt.job(2, 10, 0))
			if lt.kinds[protocols.KindConnect] != 10 {
				t.Fatalf("kinds %v (errors %q), want 10 connect failures", lt.kinds, first(lt.errs))
			}
			if e := first(lt.errs); !strings.Contains(e, tc.want) || !strings.Contains(e, "TLS handshake") {
				t.Errorf("error %q, want one that names the TLS handshake and %q", e, tc.want)
			}
		})
	}
}

// TestLoopTLSStalledHandshake: a server that accepts and never answers
// the handshake times the requests out, and the loop returns having let
// every connection go: the server reads their end.
func TestLoopTLSStalledHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		accepted []net.Conn
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range accepted {
			c.Close()
		}
	})
	tg := http1Target("https://"+ln.Addr().String()+"/", func(h *scenarios.HTTPTarget) { h.Timeout = 100 * time.Millisecond })
	var lt loopTally
	runLoop(t, tg, lt.job(2, 6, 0))
	if lt.kinds[protocols.KindTimeout] != 6 {
		t.Fatalf("kinds %v (errors %q), want 6 timeouts", lt.kinds, first(lt.errs))
	}
	mu.Lock()
	conns := append([]net.Conn(nil), accepted...)
	mu.Unlock()
	if len(conns) != 6 {
		t.Errorf("server accepted %d connections, want 6", len(conns))
	}
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Errorf("connection %d: %v, want the client's close", i, err)
		}
	}
}

// TestLoopTLSServerCloses: a server that closes each kept-alive
// connection after one answer costs a retry on a new connection and a new
// handshake, not a failure; one that says it will close is believed.
func TestLoopTLSServerCloses(t *testing.T) {
	srv := newCountingTLSServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "bye")
	})
	var lt loopTally
	runLoop(t, http1Target(srv.URL+"/", insecure), lt.job(2, 20, 0))
	if lt.kinds[protocols.KindNone] != 20 || srv.accepts.Load() != 20 {
		t.Fatalf("kinds %v (errors %q), %d connections; want 20 successes on 20", lt.kinds, first(lt.errs), srv.accepts.Load())
	}
}

func TestLoopTLSUnsupported(t *testing.T) {
	if lp, why := NewLoop(http1Target("https://127.0.0.1:1/", func(h *scenarios.HTTPTarget) { h.Keepalive = false })); lp != nil || why == "" {
		t.Errorf("a TLS connection per request: NewLoop gave a loop (%q), want the workers", why)
	}
	if lp, why := NewLoop(http1Target("https://127.0.0.1:1/", nil)); lp == nil {
		t.Errorf("kept-alive TLS: %s", why)
	}
}

// tlsCannedServer is cannedServer over TLS, with the test server's
// certificate: crypto/tls allocates nothing per record either way.
func tlsCannedServer(tb testing.TB, resp string) string {
	tb.Helper()
	cert := httptest.NewUnstartedServer(nil)
	cert.StartTLS()
	conf := &tls.Config{Certificates: cert.TLS.Certificates}
	cert.Close()
	l, err := tls.Listen("tcp", "127.0.0.1:0", conf)
	if err != nil {
		tb.Fatal(err)
	}
	return "https://" + serveCannedOn(tb, l, resp) + "/"
}
