package http1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// httpClients are the two HTTP clients; a behaviour both promise is tested
// with each, and the lean one along both of its dial paths.
var httpClients = []struct {
	name string
	make func(t *testing.T, tg *scenarios.Target) protocols.Client
}{
	{"lean-socket", func(t *testing.T, tg *scenarios.Target) protocols.Client { return newTestHTTP1Via(t, tg, false) }},
	{"lean-dialer", func(t *testing.T, tg *scenarios.Target) protocols.Client { return newTestHTTP1Via(t, tg, true) }},
	{"net-http", func(t *testing.T, tg *scenarios.Target) protocols.Client {
		cl, err := newNetHTTPClient(tg, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cl.Close() })
		return cl
	}},
}

// randomBytes are what a server that does not speak HTTP might send: no
// line ends, so that nothing but the first bytes can tell.
func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(255)) + 1 // never '\n' (10) by chance below
		if b[i] == '\n' {
			b[i] = 0
		}
	}
	return b
}

// thenHold answers the request with reply and keeps the connection open
// until the client closes it.
func thenHold(reply []byte) func(net.Conn) {
	return func(c net.Conn) {
		if readRequest(bufio.NewReader(c)) {
			_, _ = c.Write(reply)
			_, _ = io.Copy(io.Discard, c)
		}
	}
}

// endlessChunks answers with a chunked body that never ends, until the
// client goes away.
func endlessChunks(c net.Conn) {
	if !readRequest(bufio.NewReader(c)) {
		return
	}
	if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"); err != nil {
		return
	}
	const size = 8 << 10
	chunk := []byte(strconv.FormatInt(size, 16) + "\r\n" + strings.Repeat("lorem ipsum ", size/12+1)[:size] + "\r\n")
	for {
		if _, err := c.Write(chunk); err != nil {
			return
		}
	}
}

// Replies that are not HTTP are protocol errors, found from what arrived,
// without waiting for the timeout (30 s here: the test's own deadline, far
// shorter, fails it instead) or for the server to close.
func TestHTTPClientsClassifyWhatIsNotHTTP(t *testing.T) {
	long := func(h *scenarios.HTTPTarget) { h.Timeout = 30 * time.Second }
	for _, tc := range []struct {
		name   string
		handle func(net.Conn)
		mod    func(h *scenarios.HTTPTarget)
		want   protocols.ErrorKind
		errIs  error // for the lean client
	}{
		{"a line of text, then close", answerOnce("hello\n"), long, protocols.KindProtocol, errNotHTTP},
		{"random bytes on an open connection", thenHold(randomBytes(512)), long, protocols.KindProtocol, errNotHTTP},
		{"HTTP/2 preface-like reply, held open", thenHold([]byte("HTTP/2 200\r\n")), long, protocols.KindProtocol, errNotHTTP},
		{"a bad status code, held open", thenHold([]byte("HTTP/1.1 2xx OK\r\n")), long, protocols.KindProtocol, errStatusLine},
		{"closed before any byte", func(c net.Conn) { readRequest(bufio.NewReader(c)) }, long, protocols.KindReset, protocols.ErrClosedBeforeReply},
		// net/http calls this a malformed response: a protocol error.
		{"closed mid status line", answerOnce("HTTP/1."), long, protocols.KindReset, protocols.ErrClosedMidReply},
		{"endless body over max_body", endlessChunks, func(h *scenarios.HTTPTarget) {
			long(h)
			h.MaxBody = 1 << 20
		}, protocols.KindLength, errBodyTooLarge},
		{"endless body over max_body, body_contains", endlessChunks, func(h *scenarios.HTTPTarget) {
			long(h)
			h.MaxBody = 1 << 20
			h.Expect.BodyContains = "never-there"
		}, protocols.KindLength, errBodyTooLarge},
		{"endless body over max_body, body_regex", endlessChunks, func(h *scenarios.HTTPTarget) {
			long(h)
			h.MaxBody = 1 << 20
			h.Expect.BodyRegex = regexp.MustCompile(`never-there$`)
		}, protocols.KindLength, errBodyTooLarge},
	} {
		for _, hc := range httpClients {
			t.Run(tc.name+"/"+hc.name, func(t *testing.T) {
				if tc.errIs == protocols.ErrClosedMidReply && hc.name == "net-http" {
					t.Skip("net/http reports a truncated status line as malformed")
				}
				srv := newRawServer(t, tc.handle)
				cl := hc.make(t, http1Target(srv.url(), tc.mod))
				// A regression makes the request wait for the 30 s timeout:
				// this deadline makes it fail, as a timeout, well before.
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				var out protocols.Outcome
				cl.Do(ctx, 0, &out)
				if out.Kind != tc.want {
					t.Errorf("kind %v (%v), want %v", out.Kind, out.Err, tc.want)
				}
				if out.Err == nil {
					t.Errorf("no error says why")
				}
				if _, lean := cl.(*http1Client); lean && !errors.Is(out.Err, tc.errIs) {
					t.Errorf("error %v, want %v", out.Err, tc.errIs)
				}
			})
		}
	}
}

// Every failure says why in Outcome.Err; a refused connection in the words
// of net.Dialer, and with the same error each time, since the client makes
// it once.
func TestHTTPClientsSayWhyRequestsFail(t *testing.T) {
	refused := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}()
	for _, tc := range []struct {
		name   string
		handle func(net.Conn) // nil: the refused address
		mod    func(h *scenarios.HTTPTarget)
		want   protocols.ErrorKind
		msg    string // what the error says; net/http's may say more around it
	}{
		{"refused", nil, nil, protocols.KindConnect, "dial tcp " + refused + ": connect: connection refused"},
		{"body_contains", answer(okHello), func(h *scenarios.HTTPTarget) { h.Expect.BodyContains = "bye" },
			protocols.KindCheck, `body does not contain "bye"`},
		{"body_regex", answer(okHello), func(h *scenarios.HTTPTarget) { h.Expect.BodyRegex = regexp.MustCompile(`^bye`) },
			protocols.KindCheck, "body does not match \"^bye\""},
		{"length", answer(okHello), func(h *scenarios.HTTPTarget) { h.Expect.Length = 4 },
			protocols.KindLength, "body length is not 4 bytes (expect.length)"},
		{"max_body", answer(okHello), func(h *scenarios.HTTPTarget) { h.MaxBody = 4 },
			protocols.KindLength, "body exceeds max_body"},
		{"not HTTP", answerOnce("hello\n"), nil, protocols.KindProtocol, "not HTTP/1.x"},
	} {
		for _, hc := range httpClients {
			t.Run(tc.name+"/"+hc.name, func(t *testing.T) {
				url := "http://" + refused + "/"
				if tc.handle != nil {
					url = newRawServer(t, tc.handle).url()
				}
				cl := hc.make(t, http1Target(url, tc.mod))
				var first error
				for i := range 3 {
					var out protocols.Outcome
					cl.Do(t.Context(), 0, &out)
					if out.Kind != tc.want || out.Err == nil || !strings.Contains(out.Err.Error(), tc.msg) {
						t.Fatalf("request %d: kind %v, error %v; want %v, %q", i, out.Kind, out.Err, tc.want, tc.msg)
					}
					if hc.name == "lean-socket" && tc.handle == nil && first != nil && out.Err != first {
						t.Errorf("request %d: a new error for the same failure", i)
					}
					first = out.Err
				}
			})
		}
	}
}

// A refused connection costs the lean client no more allocations than a
// new connection that succeeds, and the error the system call returned: its
// own error for the report is made once. A dead server must not turn the
// generator into a garbage maker.
func TestHTTP1RefusedAllocatesLikeASuccess(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/"
	l.Close()
	perConn := func(h *scenarios.HTTPTarget) { h.Keepalive = false }
	allocs := func(url string, want protocols.ErrorKind) float64 {
		cl := newTestHTTP1Via(t, http1Target(url, perConn), false)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out protocols.Outcome
		do := func() {
			cl.Do(ctx, 0, &out)
			if out.Kind != want {
				t.Fatalf("kind %v (%v), want %v", out.Kind, out.Err, want)
			}
		}
		do()
		return testing.AllocsPerRun(100, do)
	}
	ok := allocs(cannedServer(t, okHello), protocols.KindNone)
	if refused := allocs(dead, protocols.KindConnect); refused > ok+1 {
		t.Errorf("%v allocations per refused request, %v per successful one", refused, ok)
	}
}
