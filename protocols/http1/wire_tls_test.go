package http1

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// serverTLS is a server configuration with httptest's certificate.
func serverTLS(tb testing.TB) *tls.Config {
	tb.Helper()
	s := httptest.NewUnstartedServer(http.NotFoundHandler())
	s.StartTLS()
	conf := s.TLS.Clone()
	s.Close()
	conf.NextProtos = nil
	return conf
}

// newTLSRawServer is newRawServer over TLS: handle talks to the client
// through the server's end of a TLS connection.
func newTLSRawServer(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	conf := serverTLS(t)
	srv := newRawServer(t, func(c net.Conn) {
		tc := tls.Server(c, conf)
		defer tc.Close()
		if tc.Handshake() == nil {
			handle(tc)
		}
	})
	return "https://" + srv.addr + "/"
}

// cannedTLSServer is cannedServer over TLS.
func cannedTLSServer(tb testing.TB, resp string) string {
	tb.Helper()
	l, err := tls.Listen("tcp", "127.0.0.1:0", serverTLS(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return "https://" + serveCannedOn(tb, l, resp) + "/"
}

func httpsTarget(url string, mod func(h *scenarios.HTTPTarget)) *scenarios.Target {
	return http1Target(url, func(h *scenarios.HTTPTarget) {
		h.TLS.InsecureSkipVerify = true
		if mod != nil {
			mod(h)
		}
	})
}

// TestHTTPSOnTheRawSocket checks that kept-alive HTTPS connections run on
// tlsSocket where it can drive them, and that requests whose records are
// held back until the read of their answer all succeed, one connection
// carrying them all.
func TestHTTPSOnTheRawSocket(t *testing.T) {
	var conns atomic.Int64
	url := newTLSRawServer(t, func(c net.Conn) {
		conns.Add(1)
		answer(okHello)(c)
	})
	cl := newTestHTTP1(t, httpsTarget(url, nil))
	for i := range 50 {
		var out protocols.Outcome
		cl.Do(context.Background(), 0, &out)
		if out.Kind != protocols.KindNone || out.Status != 200 {
			t.Fatalf("request %d: kind %v (%v), status %d", i, out.Kind, out.Err, out.Status)
		}
		if out.BytesSent != int64(len(cl.reqs[0].wire)) {
			t.Errorf("request %d: %d bytes sent, want %d", i, out.BytesSent, len(cl.reqs[0].wire))
		}
	}
	if rawSupported && !cl.tlsOK {
		t.Error("the connection does not run on tlsSocket")
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("server saw %d connections, want 1", got)
	}
}

// TestHTTPSErrorKinds is TestHTTP1ErrorKinds over TLS, for the failures a
// TLS server can cause through its side of the connection.
func TestHTTPSErrorKinds(t *testing.T) {
	short := func(h *scenarios.HTTPTarget) { h.Timeout = 100 * time.Millisecond }
	for _, tc := range []struct {
		name   string
		handle func(net.Conn)
		mod    func(h *scenarios.HTTPTarget)
		want   protocols.ErrorKind
	}{
		{"success", answer(okHello), nil, protocols.KindNone},
		{"garbage", answer("NOT HTTP AT ALL\r\n\r\n"), nil, protocols.KindProtocol},
		{"closed before the response", func(c net.Conn) { readRequest(bufio.NewReader(c)) }, nil, protocols.KindReset},
		{"body cut short", answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"), nil, protocols.KindReset},
		{"stalled mid-body", answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"), short, protocols.KindTimeout},
		{"timeout", func(c net.Conn) { _, _ = c.Read(make([]byte, 1<<16)); time.Sleep(time.Second) }, short, protocols.KindTimeout},
		{"status 500", answer("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"), nil, protocols.KindStatus},
		{"two answers at once", answer(okHello + okHello), nil, protocols.KindProtocol},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := newTestHTTP1(t, httpsTarget(newTLSRawServer(t, tc.handle), tc.mod))
			for i := range 3 { // a failed connection must not poison the next request
				var out protocols.Outcome
				cl.Do(context.Background(), 0, &out)
				// Two answers may reach the client in one read or in two:
				// the second is then taken for the next request's, which
				// leaves the third for nobody, so one in two requests fails.
				if out.Kind != tc.want && (tc.name != "two answers at once" || i != 1) {
					t.Errorf("request %d: kind %v (%v), want %v", i, out.Kind, out.Err, tc.want)
				}
			}
		})
	}
}

// TestHTTPSRequestWithABody checks that a request of many records, and one
// whose body is written apart from its head, reach the server whole.
func TestHTTPSRequestWithABody(t *testing.T) {
	for _, size := range []int{100, maxInlineBody, 64 << 10} {
		var got atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, _ := bufio.NewReader(r.Body).Discard(1 << 30)
			got.Store(int64(n))
			hello(w, r)
		}))
		srv.StartTLS()
		t.Cleanup(srv.Close)
		cl := newTestHTTP1(t, httpsTarget(srv.URL, func(h *scenarios.HTTPTarget) {
			h.Requests[0].Method, h.Requests[0].Body = "POST", []byte(strings.Repeat("b", size))
		}))
		for i := range 3 {
			var out protocols.Outcome
			cl.Do(context.Background(), 0, &out)
			if out.Kind != protocols.KindNone || got.Load() != int64(size) {
				t.Errorf("%d bytes, request %d: kind %v (%v), server read %d", size, i, out.Kind, out.Err, got.Load())
			}
		}
	}
}

// TestHTTPSLazyDeadline is TestHTTP1LazyDeadline over TLS: an early
// deadline fires below crypto/tls, which must not see it.
func TestHTTPSLazyDeadline(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		delay   time.Duration
		want    protocols.ErrorKind
	}{
		{"an early deadline is not the request's", 5 * time.Second, 200 * time.Millisecond, protocols.KindNone},
		{"the request's own deadline still counts", 100 * time.Millisecond, 400 * time.Millisecond, protocols.KindTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if served.Add(1) == 2 {
					time.Sleep(tc.delay)
				}
				hello(w, r)
			}))
			srv.StartTLS()
			t.Cleanup(srv.Close)
			cl := newTestHTTP1(t, httpsTarget(srv.URL, func(h *scenarios.HTTPTarget) { h.Timeout = tc.timeout }))
			checkSecondRequest(t, cl, tc.want)
		})
	}
}

// TestHTTPSInterrupted checks that a request blocked on a kept-alive HTTPS
// connection ends when its context does, and when the client is closed.
func TestHTTPSInterrupted(t *testing.T) {
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			var n atomic.Int64
			url := newTLSRawServer(t, func(c net.Conn) {
				r := bufio.NewReader(c)
				for readRequest(r) {
					if n.Add(1) > 1 {
						time.Sleep(3 * time.Second)
						return
					}
					_, _ = c.Write([]byte(okHello))
				}
			})
			cl := newTestHTTP1(t, httpsTarget(url, func(h *scenarios.HTTPTarget) { h.Timeout = 10 * time.Second }))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out protocols.Outcome
			cl.Do(ctx, 0, &out)
			if out.Kind != protocols.KindNone {
				t.Fatalf("first request: %v %v", out.Kind, out.Err)
			}
			done := make(chan protocols.Outcome)
			go func() {
				var o protocols.Outcome
				cl.Do(ctx, 0, &o)
				done <- o
			}()
			time.Sleep(50 * time.Millisecond)
			if how == "cancel" {
				cancel()
			} else {
				_ = cl.Close()
			}
			select {
			case o := <-done:
				if o.Kind == protocols.KindNone {
					t.Error("the interrupted request succeeded")
				}
			case <-time.After(2 * time.Second):
				t.Fatal("the request was not interrupted")
			}
		})
	}
}

// TestHTTPSKeepAliveAllocations checks that a kept-alive HTTPS request
// allocates nothing but what crypto/tls does in reading a record: the
// reader it hands bytes.Buffer.ReadFrom (readFromUntil) escapes, once per
// record read, on the client's side and on the test server's.
func TestHTTPSKeepAliveAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	cl := newTestHTTP1(t, httpsTarget(cannedTLSServer(t, nginxHello), nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out protocols.Outcome
	do := func() {
		cl.Do(ctx, 0, &out)
		if out.Kind != protocols.KindNone {
			t.Fatalf("request failed: %v %v", out.Kind, out.Err)
		}
	}
	do()                     // the connection, its handshake and the cancellation hook are made once
	const tlsRecordReads = 2 // one by the client, one by the server
	if n := testing.AllocsPerRun(1000, do); n > tlsRecordReads {
		t.Errorf("%v allocations per kept-alive HTTPS request, want at most %d (crypto/tls's)", n, tlsRecordReads)
	}
}

// BenchmarkHTTPSKeepAlive measures kept-alive HTTPS requests of the lean
// client and of net/http against an in-process TLS server.
func BenchmarkHTTPSKeepAlive(b *testing.B) {
	benchKeepAlive(b, httpsTarget(cannedTLSServer(b, nginxHello), nil))
}
