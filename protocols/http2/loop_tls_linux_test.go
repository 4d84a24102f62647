//go:build linux

package http2

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// h2 over TLS on the loop: the handshakes run beside it, and the requests
// that waited for them then go as over h2c.
func TestLoopTLS(t *testing.T) {
	for _, tc := range []struct {
		name         string
		conns, slots int
		every        time.Duration
	}{
		{"closed", 3, 9, 0},
		{"open", 2, 40, 200 * time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newH2Server(t, true, hello)
			var lt loopTally
			const limit = 300
			runLoop(t, h2Target(srv.URL+"/", tc.conns), lt.job(tc.slots, limit, tc.every, 30*time.Second))
			if got := lt.kinds[protocols.KindNone]; got != limit || lt.statuses[200] != limit {
				t.Fatalf("%d succeeded of %d, statuses %v (kinds %v, errors %q)", got, limit, lt.statuses, lt.kinds, firstErr(lt.errs))
			}
			if got := srv.connCount(); got != tc.conns {
				t.Errorf("the server accepted %d connections, want %d", got, tc.conns)
			}
			if lt.connects != tc.conns {
				t.Errorf("%d requests were charged a connect, want one per connection (%d)", lt.connects, tc.conns)
			}
			// The records cost more than the frames they carry: the
			// handshake's bytes are counted.
			if lt.received < 1000 || lt.sent < 1000 {
				t.Errorf("bytes sent %d, received %d: the handshakes' are missing", lt.sent, lt.received)
			}
		})
	}
}

// A TLS server refused: no h2 in ALPN, a certificate not trusted, no
// server at all; or one that never answers the handshake, which the
// request's timeout or the phase's end ends.
func TestLoopTLSFailures(t *testing.T) {
	h1 := func(t *testing.T) string {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
		srv.StartTLS() // ALPN offers only http/1.1
		t.Cleanup(srv.Close)
		return srv.URL
	}
	h2 := func(t *testing.T) string { return newH2Server(t, true, hello).URL }
	silent := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				t.Cleanup(func() { _ = c.Close() })
			}
		}()
		return "https://" + ln.Addr().String()
	}
	dead := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		_ = ln.Close()
		return "https://" + ln.Addr().String()
	}
	for _, tc := range []struct {
		name     string
		server   func(*testing.T) string
		verify   bool
		timeout  time.Duration
		kind     protocols.ErrorKind
		words    string
		phaseEnd time.Duration
	}{
		{"no h2", h1, false, 0, protocols.KindProtocol, "ALPN http/1.1", 30 * time.Second},
		{"untrusted certificate", h2, true, 0, protocols.KindConnect, "certificate", 30 * time.Second},
		{"nothing listening", dead, false, 0, protocols.KindConnect, "connection refused", 30 * time.Second},
		{"silent, timeout", silent, false, 100 * time.Millisecond, protocols.KindTimeout, "timeout", 30 * time.Second},
		{"silent, phase end", silent, false, 0, protocols.KindUnfinished, "", 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := h2Target(tc.server(t)+"/", 2)
			tg.HTTP.TLS.InsecureSkipVerify = !tc.verify
			tg.HTTP.Timeout = tc.timeout
			lp, why := NewLoop(tg, 2)
			if lp == nil {
				t.Fatal(why)
			}
			var lt loopTally
			const limit = 8
			job := lt.job(4, limit, 0, tc.phaseEnd)
			began := time.Now()
			if err := lp.Run(context.Background(), job); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(began); took > tc.phaseEnd+5*time.Second {
				t.Errorf("the loop took %v to end", took)
			}
			if got := lt.kinds[tc.kind]; got == 0 || got != lt.total() {
				t.Fatalf("kinds %v: want every request %v (errors %q)", lt.kinds, tc.kind, firstErr(lt.errs))
			}
			if !strings.Contains(firstErr(lt.errs), tc.words) {
				t.Errorf("error %q does not say %q", firstErr(lt.errs), tc.words)
			}
		})
	}
}
