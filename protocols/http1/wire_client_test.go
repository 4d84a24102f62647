package http1

import (
	"bufio"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// rawServer is a loopback TCP server that hands every accepted connection
// to handle, for responses net/http would never send.
type rawServer struct {
	addr    string
	accepts atomic.Int64
}

func newRawServer(t *testing.T, handle func(c net.Conn)) *rawServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{addr: l.Addr().String()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return s
}

func (s *rawServer) url() string { return "http://" + s.addr + "/" }

// readRequest reads one request head (these tests send no bodies).
func readRequest(r *bufio.Reader) bool {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return false
		}
		if line == "\r\n" {
			return true
		}
	}
}

// answer serves every request on the connection with resp.
func answer(resp string) func(net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReader(c)
		for readRequest(r) {
			if _, err := io.WriteString(c, resp); err != nil {
				return
			}
		}
	}
}

// answerOnce serves one request with resp and closes the connection.
func answerOnce(resp string) func(net.Conn) {
	return func(c net.Conn) {
		if readRequest(bufio.NewReader(c)) {
			_, _ = io.WriteString(c, resp)
		}
	}
}

func http1Target(url string, mod func(h *scenarios.HTTPTarget)) *scenarios.Target {
	h := &scenarios.HTTPTarget{
		Requests:  []scenarios.HTTPRequest{{Method: "GET", URL: url, Weight: 1}},
		Keepalive: true, Timeout: 5 * time.Second, MaxBody: 1 << 20, Expect: scenarios.Expect{Length: -1},
	}
	if mod != nil {
		mod(h)
	}
	return &scenarios.Target{Name: "t", HTTP: h}
}

func newTestHTTP1(t *testing.T, tg *scenarios.Target) *http1Client {
	t.Helper()
	cl, err := newHTTP1Client(tg, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl.(*http1Client)
}

const okHello = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"

// dialPaths are the two ways the client opens a connection: dialSocket, for
// an IP address on Linux, and net.Dialer. Tests of a behaviour both share
// run once with each.
var dialPaths = []struct {
	name   string
	dialer bool
}{{"socket", false}, {"dialer", true}}

// newTestHTTP1Via is newTestHTTP1 opening its connections with net.Dialer
// when dialer is set.
func newTestHTTP1Via(t *testing.T, tg *scenarios.Target, dialer bool) *http1Client {
	t.Helper()
	cl := newTestHTTP1(t, tg)
	if dialer {
		cl.sock = nil
	} else if cl.sock == nil && runtime.GOOS == "linux" {
		t.Fatal("an IP address is not dialled with a socket")
	}
	return cl
}

func TestHTTP1Connections(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keepalive bool
		wantConns int64
	}{
		{"keep-alive reuses one connection", true, 1},
		{"no keep-alive opens one per request", false, 10},
	} {
		for _, dp := range dialPaths {
			t.Run(tc.name+"/"+dp.name, func(t *testing.T) {
				srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
					if !tc.keepalive && !r.Close {
						t.Error("request without Connection: close")
					}
					hello(w, r)
				})
				cl := newTestHTTP1Via(t, http1Target(srv.URL, func(h *scenarios.HTTPTarget) { h.Keepalive = tc.keepalive }), dp.dialer)
				var connects int64
				for i := range 10 {
					var out protocols.Outcome
					cl.Do(context.Background(), 0, &out)
					if out.Kind != protocols.KindNone || out.Status != 200 {
						t.Fatalf("request %d: kind %v status %d", i, out.Kind, out.Status)
					}
					if out.Connect > 0 {
						connects++
					}
				}
				if got := srv.accepts.Load(); got != tc.wantConns {
					t.Errorf("server accepted %d connections, want %d", got, tc.wantConns)
				}
				if tc.keepalive && !cl.rawOK {
					t.Error("a kept-alive TCP connection does not use the one-read exchange")
				}
				if connects != tc.wantConns {
					t.Errorf("%d requests report a connect time, want %d", connects, tc.wantConns)
				}
			})
		}
	}
}

// A server that closes a kept-alive connection between requests (an idle
// timeout, a request limit) is not failing: the client redials once.
func TestHTTP1RedialsWhenTheServerClosedIdle(t *testing.T) {
	srv := newRawServer(t, answerOnce(okHello))
	cl := newTestHTTP1(t, http1Target(srv.url(), nil))
	for i := range 5 {
		var out protocols.Outcome
		cl.Do(context.Background(), 0, &out)
		if out.Kind != protocols.KindNone || out.Connect <= 0 {
			t.Fatalf("request %d: kind %v, connect %v; want success on a new connection", i, out.Kind, out.Connect)
		}
		if i > 0 && out.BytesSent != 2*int64(len(cl.reqs[0].wire)) {
			t.Errorf("request %d: %d bytes sent, want the request twice (%d)", i, out.BytesSent, 2*len(cl.reqs[0].wire))
		}
	}
	if got := srv.accepts.Load(); got != 5 {
		t.Errorf("server accepted %d connections, want 5", got)
	}
}

// A server that only shuts down its side of an idle connection (a lingering
// close, as Apache does when its keep-alive timeout runs out) still reads
// what comes; the client must notice the close rather than wait for an
// answer that will never come.
func TestHTTP1RedialsAfterALingeringClose(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn) {
		if readRequest(bufio.NewReader(c)) {
			_, _ = io.WriteString(c, okHello)
			_ = c.(*net.TCPConn).CloseWrite()
			_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
			_, _ = io.Copy(io.Discard, c)
		}
	})
	cl := newTestHTTP1(t, http1Target(srv.url(), nil))
	for i := range 3 {
		time.Sleep(2 * rawIdleLimit) // the server's close arrives while the connection is idle
		start := time.Now()
		var out protocols.Outcome
		cl.Do(context.Background(), 0, &out)
		if took := time.Since(start); out.Kind != protocols.KindNone || took > time.Second {
			t.Fatalf("request %d: kind %v after %v; want success on a new connection", i, out.Kind, took)
		}
	}
	if got := srv.accepts.Load(); got != 3 {
		t.Errorf("server accepted %d connections, want 3", got)
	}
}

// The redial is tried once: a server that closes every new connection too
// is failing.
func TestHTTP1RetriesOnlyOnce(t *testing.T) {
	var served atomic.Bool
	srv := newRawServer(t, func(c net.Conn) {
		if served.CompareAndSwap(false, true) && readRequest(bufio.NewReader(c)) {
			_, _ = io.WriteString(c, okHello)
		}
	})
	cl := newTestHTTP1(t, http1Target(srv.url(), nil))
	var out protocols.Outcome
	cl.Do(context.Background(), 0, &out)
	if out.Kind != protocols.KindNone {
		t.Fatalf("first request: %v", out.Kind)
	}
	cl.Do(context.Background(), 0, &out)
	if out.Kind != protocols.KindReset {
		t.Errorf("second request: kind %v, want reset", out.Kind)
	}
	if got := srv.accepts.Load(); got != 2 {
		t.Errorf("server accepted %d connections, want 2", got)
	}
}

func TestHTTP1ErrorKinds(t *testing.T) {
	refused := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return "http://" + l.Addr().String() + "/"
	}()
	reset := func(c net.Conn) {
		readRequest(bufio.NewReader(c))
		_ = c.(*net.TCPConn).SetLinger(0)
	}
	silent := func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }
	for _, tc := range []struct {
		name   string
		handle func(net.Conn) // nil: the refused address
		mod    func(h *scenarios.HTTPTarget)
		want   protocols.ErrorKind
	}{
		{"refused", nil, nil, protocols.KindConnect},
		{"success", answer(okHello), nil, protocols.KindNone},
		{"garbage", answer("NOT HTTP AT ALL\r\n\r\n"), nil, protocols.KindProtocol},
		{"reset before the response", reset, nil, protocols.KindReset},
		{"closed before the response", func(c net.Conn) { readRequest(bufio.NewReader(c)) }, nil, protocols.KindReset},
		{"closed on accept", func(net.Conn) {}, nil, protocols.KindReset},
		{"body cut short", answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"), nil, protocols.KindReset},
		{"stalled mid-body", answer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"),
			func(h *scenarios.HTTPTarget) { h.Timeout = 100 * time.Millisecond }, protocols.KindTimeout},
		{"until close", answerOnce("HTTP/1.0 200 OK\r\n\r\nhello"), func(h *scenarios.HTTPTarget) { h.Expect.Length = 5 }, protocols.KindNone},
		{"headers too large", answer("HTTP/1.1 200 OK\r\nX: " + strings.Repeat("x", 80<<10) + "\r\n\r\n"), nil, protocols.KindProtocol},
		{"timeout", silent, func(h *scenarios.HTTPTarget) { h.Timeout = 100 * time.Millisecond }, protocols.KindTimeout},
		{"status 500", answer("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"), nil, protocols.KindStatus},
		{"status not expected", answer(okHello), func(h *scenarios.HTTPTarget) { h.Expect.Status = []int{204} }, protocols.KindStatus},
		{"above max_body", answer(okHello), func(h *scenarios.HTTPTarget) { h.MaxBody = 4 }, protocols.KindLength},
		{"length differs", answer(okHello), func(h *scenarios.HTTPTarget) { h.Expect.Length = 4 }, protocols.KindLength},
		{"body_contains", answer(okHello), func(h *scenarios.HTTPTarget) { h.Expect.BodyContains = "bye" }, protocols.KindCheck},
		{"body_regex", answer(okHello), func(h *scenarios.HTTPTarget) { h.Expect.BodyRegex = regexp.MustCompile(`^h.*z$`) }, protocols.KindCheck},
		{"all checks pass", answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n"),
			func(h *scenarios.HTTPTarget) {
				h.Expect = scenarios.Expect{Status: []int{200}, Length: 5, BodyContains: "ell", BodyRegex: regexp.MustCompile(`^hello$`)}
			}, protocols.KindNone},
	} {
		for _, dp := range dialPaths {
			t.Run(tc.name+"/"+dp.name, func(t *testing.T) {
				url := refused
				if tc.handle != nil {
					url = newRawServer(t, tc.handle).url()
				}
				cl := newTestHTTP1Via(t, http1Target(url, tc.mod), dp.dialer)
				start := time.Now()
				for i := range 3 { // a failed connection must not poison the next request
					var out protocols.Outcome
					cl.Do(context.Background(), 0, &out)
					if out.Kind != tc.want {
						t.Errorf("request %d: kind %v, want %v", i, out.Kind, tc.want)
					}
				}
				if took := time.Since(start); took > 2*time.Second {
					t.Errorf("three requests took %v", took)
				}
			})
		}
	}
}

// A request blocked on a kept-alive connection, or on a new one, is
// interrupted promptly by its deadline and by cancellation.
func TestHTTP1InterruptsABlockedRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		cancel  time.Duration       // < 0: never
		want    protocols.ErrorKind // for a request the caller did not cancel
	}{
		{"timeout", 100 * time.Millisecond, -1, protocols.KindTimeout},
		{"cancel", time.Minute, 50 * time.Millisecond, protocols.KindNone},
		{"cancel before the request", time.Minute, 0, protocols.KindNone},
	} {
		for _, reused := range []bool{false, true} {
			for _, dp := range dialPaths {
				t.Run(fmt.Sprintf("%s/reused %v/%s", tc.name, reused, dp.name), func(t *testing.T) {
					stall := func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }
					if reused {
						stall = func(c net.Conn) { // after one answer
							r := bufio.NewReader(c)
							if readRequest(r) {
								_, _ = io.WriteString(c, okHello)
							}
							_, _ = io.Copy(io.Discard, r)
						}
					}
					srv := newRawServer(t, stall)
					cl := newTestHTTP1Via(t, http1Target(srv.url(), func(h *scenarios.HTTPTarget) { h.Timeout = tc.timeout }), dp.dialer)
					var out protocols.Outcome
					if reused {
						if cl.Do(context.Background(), 0, &out); out.Kind != protocols.KindNone {
							t.Fatalf("first request: %v", out.Kind)
						}
					}
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					if tc.cancel >= 0 {
						time.AfterFunc(tc.cancel, cancel)
						if tc.cancel == 0 {
							time.Sleep(10 * time.Millisecond)
						}
					}
					start := time.Now()
					cl.Do(ctx, 0, &out)
					if took := time.Since(start); took > time.Second {
						t.Errorf("Do returned after %v", took)
					}
					switch {
					case ctx.Err() != nil && out.Kind == protocols.KindNone:
						t.Error("an interrupted request reported success")
					case ctx.Err() == nil && out.Kind != tc.want:
						t.Errorf("kind %v, want %v", out.Kind, tc.want)
					}
				})
			}
		}
	}
}

// watching reports whether clients watch the context whose Done is done,
// and how many.
func watching(done <-chan struct{}) (bool, int) {
	ctxWatches.Lock()
	defer ctxWatches.Unlock()
	w := ctxWatches.m[done]
	if w == nil {
		return false, 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return true, len(w.clients)
}

// The clients of one context are interrupted together when it ends, from
// one goroutine, and its watch goes away with the context or with its last
// client.
func TestHTTP1ContextWatch(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }) // never answers
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 20
	kinds := make(chan protocols.ErrorKind, n)
	for range n {
		cl := newTestHTTP1(t, http1Target(srv.url(), func(h *scenarios.HTTPTarget) { h.Timeout = time.Minute }))
		go func() {
			var out protocols.Outcome
			cl.Do(ctx, 0, &out)
			kinds <- out.Kind
		}()
	}
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if _, k := watching(ctx.Done()); k == n {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the clients did not all watch their context")
		}
	}
	goroutines := runtime.NumGoroutine()
	cancel()
	for range n {
		select {
		case k := <-kinds:
			if k == protocols.KindNone {
				t.Error("an interrupted request reported success")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a request was not interrupted")
		}
	}
	if g := runtime.NumGoroutine(); g > goroutines+1 {
		t.Errorf("%d goroutines after the end of the context, %d before", g, goroutines)
	}
	if ok, _ := watching(ctx.Done()); ok {
		t.Error("the watch of a context that ended is still there")
	}

	// A context that goes on: its watch leaves with its last client.
	live, stop := context.WithCancel(context.Background())
	defer stop()
	ok := newRawServer(t, answer(okHello))
	var clients []*http1Client
	for range 2 {
		cl := newTestHTTP1(t, http1Target(ok.url(), nil))
		var out protocols.Outcome
		if cl.Do(live, 0, &out); out.Kind != protocols.KindNone {
			t.Fatalf("request: %v", out.Kind)
		}
		clients = append(clients, cl)
	}
	if _, k := watching(live.Done()); k != 2 {
		t.Fatalf("%d clients watch the context, want 2", k)
	}
	for i, cl := range clients {
		_ = cl.Close()
		if ok, k := watching(live.Done()); ok != (i == 0) || k != 1-i {
			t.Errorf("after %d closed: watched %v by %d clients", i+1, ok, k)
		}
	}
}

// The engine may close a client whose request it abandoned.
func TestHTTP1CloseInterruptsDo(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	cl := newTestHTTP1(t, http1Target(srv.url(), nil))
	time.AfterFunc(50*time.Millisecond, func() { _ = cl.Close() })
	start := time.Now()
	var out protocols.Outcome
	cl.Do(context.Background(), 0, &out)
	if took := time.Since(start); took > time.Second || out.Kind == protocols.KindNone {
		t.Errorf("Do returned %v after %v", out.Kind, took)
	}
}

// lateContext is a context whose deadline has passed but whose timer has
// not run yet: Err is nil and Done open until end is closed.
type lateContext struct {
	context.Context
	end chan struct{}
}

func (c *lateContext) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }
func (c *lateContext) Done() <-chan struct{}       { return c.end }
func (c *lateContext) Err() error {
	select {
	case <-c.end:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// A dial the context's deadline cut short returns once the context is done,
// so that the caller sees why, rather than a server's failure it would
// count again and again until the context's timer runs.
func TestHTTP1DialWaitsForTheEndOfItsContext(t *testing.T) {
	srv := newRawServer(t, answer(okHello))
	cl := newTestHTTP1(t, http1Target(srv.url(), func(h *scenarios.HTTPTarget) { h.Keepalive = false }))
	cl.sock = nil // net.Dialer's path: dialSocket does not go by the context's deadline
	ctx := &lateContext{Context: context.Background(), end: make(chan struct{})}
	const late = 50 * time.Millisecond
	time.AfterFunc(late, func() { close(ctx.end) })
	start := time.Now()
	var out protocols.Outcome
	cl.Do(ctx, 0, &out)
	if ctx.Err() == nil || out.Kind == protocols.KindNone {
		t.Errorf("Do returned %v after %v, before its context was done", out.Kind, time.Since(start))
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Do returned after %v", took)
	}
}

// A failed dial is a timeout only when a deadline has passed; local errors
// such as a lack of ephemeral ports are failures to connect.
func TestHTTP1ConnectFailureKinds(t *testing.T) {
	dialErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
	}
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	later, past := time.Now().Add(time.Hour), time.Now().Add(-time.Millisecond)
	for _, tc := range []struct {
		name     string
		err      error
		deadline time.Time
		want     protocols.ErrorKind
	}{
		{"no local address", dialErr(syscall.EADDRNOTAVAIL), later, protocols.KindConnect},
		{"no local port, older kernels", dialErr(syscall.EAGAIN), later, protocols.KindConnect},
		{"no local address, no deadline", dialErr(syscall.EADDRNOTAVAIL), time.Time{}, protocols.KindConnect},
		{"refused", dialErr(syscall.ECONNREFUSED), later, protocols.KindConnect},
		{"SYN retries exhausted", dialErr(syscall.ETIMEDOUT), later, protocols.KindConnect},
		{"refused at the deadline", dialErr(syscall.ECONNREFUSED), past, protocols.KindConnect},
		{"deadline passed", timeout, past, protocols.KindTimeout},
		{"deadline passed, context error", &net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}, past, protocols.KindTimeout},
	} {
		if got := protocols.ConnectFailure(context.Background(), tc.err, tc.deadline); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestHTTP1CountsWireBytes(t *testing.T) {
	const resp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Pad: 123\r\n\r\nhello"
	srv := newRawServer(t, answer(resp))
	cl := newTestHTTP1(t, http1Target(srv.url(), nil))
	for i := range 3 {
		var out protocols.Outcome
		cl.Do(context.Background(), 0, &out)
		if out.Kind != protocols.KindNone || out.BytesReceived != int64(len(resp)) || out.BytesSent != int64(len(cl.reqs[0].wire)) {
			t.Errorf("request %d: %v, %d bytes received (want %d), %d sent (want %d)",
				i, out.Kind, out.BytesReceived, len(resp), out.BytesSent, len(cl.reqs[0].wire))
		}
	}
}

func TestHTTP1Serialize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		req       scenarios.HTTPRequest
		keepalive bool
		want      string
	}{
		{"plain GET", scenarios.HTTPRequest{Method: "GET", URL: "http://example.test:8080"}, true,
			"GET / HTTP/1.1\r\nHost: example.test:8080\r\nUser-Agent: loadgate\r\n\r\n"},
		{"headers in file order, query kept, fragment dropped", scenarios.HTTPRequest{Method: "GET",
			URL:     "http://h/a%20b?q=1#frag",
			Headers: []scenarios.Header{{Name: "X-B", Value: "2"}, {Name: "accept", Value: "*/*"}, {Name: "X-B", Value: "3"}}}, true,
			"GET /a%20b?q=1 HTTP/1.1\r\nHost: h\r\nX-B: 2\r\naccept: */*\r\nX-B: 3\r\nUser-Agent: loadgate\r\n\r\n"},
		{"own User-Agent and Host", scenarios.HTTPRequest{Method: "GET", URL: "http://127.0.0.1/",
			Headers: []scenarios.Header{{Name: "user-agent", Value: "me"}, {Name: "Host", Value: "vhost.test"}}}, true,
			"GET / HTTP/1.1\r\nHost: vhost.test\r\nuser-agent: me\r\n\r\n"},
		{"body framed by the client", scenarios.HTTPRequest{Method: "PUT", URL: "http://h/x", Body: []byte("u=1"),
			Headers: []scenarios.Header{{Name: "Content-Length", Value: "99"}, {Name: "Transfer-Encoding", Value: "chunked"}}}, true,
			"PUT /x HTTP/1.1\r\nHost: h\r\nUser-Agent: loadgate\r\nContent-Length: 3\r\n\r\nu=1"},
		{"empty POST says so", scenarios.HTTPRequest{Method: "POST", URL: "http://h/"}, true,
			"POST / HTTP/1.1\r\nHost: h\r\nUser-Agent: loadgate\r\nContent-Length: 0\r\n\r\n"},
		{"short connection", scenarios.HTTPRequest{Method: "HEAD", URL: "http://h/",
			Headers: []scenarios.Header{{Name: "Connection", Value: "keep-alive"}}}, false,
			"HEAD / HTTP/1.1\r\nHost: h\r\nUser-Agent: loadgate\r\nConnection: close\r\n\r\n"},
		{"URL credentials", scenarios.HTTPRequest{Method: "GET", URL: "http://ann:secret@h/"}, true,
			"GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: loadgate\r\nAuthorization: Basic YW5uOnNlY3JldA==\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := serialize(&tc.req, tc.keepalive)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(r.wire)); diff != "" {
				t.Errorf("wire (-want +got):\n%s", diff)
			}
			if r.head != (tc.req.Method == "HEAD") || r.close != !tc.keepalive {
				t.Errorf("head %v close %v", r.head, r.close)
			}
		})
	}
}

// Requests pass net/http's own server parser, bodies included.
func TestHTTP1RequestsReachTheServer(t *testing.T) {
	var got atomic.Value
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("X-Id") + " " + string(b))
		hello(w, r)
	})
	cl := newTestHTTP1(t, http1Target(srv.URL, func(h *scenarios.HTTPTarget) {
		h.Requests = []scenarios.HTTPRequest{
			{Name: "get", Method: "GET", URL: srv.URL + "/a?x=1", Headers: []scenarios.Header{{Name: "X-Id", Value: "1"}}, Weight: 1},
			{Name: "post", Method: "POST", URL: srv.URL + "/b", Body: []byte("data"), Headers: []scenarios.Header{{Name: "X-Id", Value: "2"}}, Weight: 1},
		}
	}))
	for i, want := range []string{"GET /a?x=1 1 ", "POST /b 2 data", "GET /a?x=1 1 "} {
		var out protocols.Outcome
		cl.Do(context.Background(), i%2, &out)
		if out.Kind != protocols.KindNone || got.Load() != want {
			t.Errorf("request %d: %v, server saw %q, want %q", i, out.Kind, got.Load(), want)
		}
	}
	if srv.accepts.Load() != 1 {
		t.Errorf("server accepted %d connections, want 1", srv.accepts.Load())
	}
}

func TestHTTP1TLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tls  scenarios.TLS
		want protocols.ErrorKind
	}{
		{"insecure_skip_verify", scenarios.TLS{InsecureSkipVerify: true}, protocols.KindNone},
		{"ca_file", scenarios.TLS{CAFile: caFile}, protocols.KindNone},
		{"unknown authority", scenarios.TLS{}, protocols.KindConnect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := newTestHTTP1(t, http1Target(srv.URL, func(h *scenarios.HTTPTarget) { h.TLS = tc.tls }))
			for i := range 2 {
				var out protocols.Outcome
				cl.Do(context.Background(), 0, &out)
				if out.Kind != tc.want {
					t.Fatalf("request %d: kind %v, want %v", i, out.Kind, tc.want)
				}
				if tc.want == protocols.KindNone && (out.Connect > 0) != (i == 0) {
					t.Errorf("request %d: connect %v; want one handshake, on the first request", i, out.Connect)
				}
			}
		})
	}
}

func TestNewClientFallsBackToNetHTTP(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(h *scenarios.HTTPTarget)
		lean bool
	}{
		{"plain target", nil, true},
		{"https target", func(h *scenarios.HTTPTarget) { h.Requests[0].URL = "https://h/" }, true},
		{"HTTP/2", func(h *scenarios.HTTPTarget) { h.HTTP2 = true }, false},
		{"two origins", func(h *scenarios.HTTPTarget) {
			h.Requests = append(h.Requests, scenarios.HTTPRequest{Method: "GET", URL: "http://other/", Weight: 1})
		}, false},
		{"CONNECT", func(h *scenarios.HTTPTarget) { h.Requests[0].Method = "CONNECT" }, false},
		{"internationalised host", func(h *scenarios.HTTPTarget) { h.Requests[0].URL = "http://bücher.test/" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := NewClient(http1Target("http://h/", tc.mod), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if _, lean := cl.(*http1Client); lean != tc.lean {
				t.Errorf("lean client = %v, want %v", lean, tc.lean)
			}
		})
	}
}
