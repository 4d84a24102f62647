//go:build linux

package http1

import (
	"bufio"
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// HTTP/1.1 framing is checked both ways: bytes a server sends when no
// request asked for them fail a request with KindProtocol and close the
// connection, on both engines alike. These tests drive the event loop and
// the lean client against the same misbehaving servers and compare what
// each counted with what the server read.

// hostileMode is how a hostileServer answers.
type hostileMode int

const (
	// wellBehaved answers every request with okHello.
	wellBehaved hostileMode = iota
	// closeAfterN answers hostileN requests on a connection, then closes
	// it: a normal keep-alive close, no failure.
	closeAfterN
	// twoResponses answers every request with 200 and an unsolicited 500,
	// in one write, so that they arrive together whatever the scheduling.
	twoResponses
	// earlyBytes writes a response as soon as a connection is accepted, before
	// it reads anything, then answers the request. The unsolicited
	// response's last byte waits for the request, so that the answer
	// arrives with it, whatever the scheduling.
	earlyBytes
	// lateSecond answers with 200 and then, once the client has recorded
	// the 200 (see release), an unsolicited 500, which arrives while the
	// client is between requests.
	lateSecond
	// idle408 answers with 200 and then, once the client has recorded it,
	// announces the close of the idle connection with a 408, as some
	// servers do: no failure either.
	idle408
)

// hostileN is how many requests closeAfterN answers on a connection.
const hostileN = 3

const (
	hostile500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops"
	hostile408 = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
)

// hostileServer is a loopback HTTP/1.1 server that misbehaves as its mode
// says and counts the connections it accepted and the requests it read.
type hostileServer struct {
	*rawServer
	mode  hostileMode
	reads atomic.Int64
	// next lets lateSecond and idle408 write their second response; wrote
	// says it is written.
	next, wrote chan struct{}
}

func newHostileServer(t *testing.T, mode hostileMode) *hostileServer {
	t.Helper()
	s := &hostileServer{mode: mode, next: make(chan struct{}), wrote: make(chan struct{})}
	s.rawServer = newRawServer(t, s.serve)
	return s
}

func (s *hostileServer) serve(c net.Conn) {
	r := bufio.NewReader(c)
	if s.mode == earlyBytes && !write(c, okHello[:len(okHello)-1]) {
		return
	}
	for n := 0; readRequest(r); n++ {
		s.reads.Add(1)
		var ok bool
		switch s.mode {
		case twoResponses:
			ok = write(c, okHello+hostile500)
		case earlyBytes:
			ok = write(c, okHello[len(okHello)-1:]+okHello)
		case lateSecond, idle408:
			second := hostile500
			if s.mode == idle408 {
				second = hostile408
			}
			if ok = write(c, okHello) && s.await(); ok {
				ok = write(c, second) && s.mode != idle408
				s.wrote <- struct{}{}
			}
		default:
			ok = write(c, okHello) && (s.mode != closeAfterN || n+1 < hostileN)
		}
		if !ok {
			return
		}
	}
}

// hostileWait bounds the waits of a hostile server and its client for
// each other, so that a test that goes wrong fails instead of hanging.
const hostileWait = 10 * time.Second

// await waits for release.
func (s *hostileServer) await() bool {
	select {
	case <-s.next:
		return true
	case <-time.After(hostileWait):
		return false
	}
}

// release has lateSecond or idle408 write the second response to a
// request whose 200 the client has recorded, and returns once it is
// written: it is then on its way to the client, and cannot arrive with
// the 200. It reports false for the other modes, and after a while when
// no connection waits.
func (s *hostileServer) release() bool {
	if s.mode != lateSecond && s.mode != idle408 {
		return false
	}
	select {
	case s.next <- struct{}{}:
	case <-time.After(hostileWait):
		return false
	}
	<-s.wrote
	return true
}

func write(c net.Conn, s string) bool {
	_, err := io.WriteString(c, s)
	return err == nil
}

// engineCounts is what one engine recorded of a run: requests by kind, and
// the errors of the protocol failures.
type engineCounts struct {
	kinds    [protocols.NumKinds]int
	protoErr []string
}

// runWorker sends limit requests one after the other through one lean
// client, as a worker does. After a success it has srv write its second
// response, if it has one, and waits for its bytes to arrive.
func runWorker(t *testing.T, srv *hostileServer, limit int) engineCounts {
	t.Helper()
	cl := newTestHTTP1(t, http1Target(srv.url(), nil))
	var got engineCounts
	for range limit {
		var out protocols.Outcome
		cl.Do(context.Background(), 0, &out)
		got.kinds[out.Kind]++
		if out.Kind == protocols.KindProtocol {
			got.protoErr = append(got.protoErr, out.Err.Error())
		}
		if out.Kind == protocols.KindNone && srv.release() {
			awaitIdle(t, cl, idleQuiet)
		}
	}
	return got
}

// loopThink is how long a slot of the loop thinks after each response when
// the server writes a second one: the loop polls its connections then and
// learns of the bytes, as the lean client does when it looks before its
// next write. release has written them before the think begins.
const loopThink = 50 * time.Millisecond

// runOneSlotLoop sends limit requests through an event loop of one slot.
// After a success it has srv write its second response, if it has one.
func runOneSlotLoop(t *testing.T, srv *hostileServer, limit int) engineCounts {
	t.Helper()
	var lt loopTally
	job := lt.job(1, limit, 0)
	if srv.mode == lateSecond || srv.mode == idle408 {
		job.Think = loopThink
	}
	done := job.Done
	job.Done = func(req int, at, latency, lag time.Duration, out *protocols.Outcome) {
		done(req, at, latency, lag, out)
		if out.Kind == protocols.KindNone {
			srv.release()
		}
	}
	runLoop(t, http1Target(srv.url(), nil), job)
	got := engineCounts{kinds: lt.kinds}
	if got.kinds[protocols.KindProtocol] > 0 {
		got.protoErr = lt.errs // a run with protocol failures has no other errors
	}
	return got
}

// TestFramingBothEngines is the differential test: each mode, through the
// event loop and through the lean client, one connection at a time for a
// bounded number of requests. Both engines must count the same by kind,
// and what they count must match what the server read:
//   - wellBehaved, closeAfterN, idle408: every request succeeds and reached
//     the server (none == reads == limit);
//   - twoResponses, earlyBytes: every request reached the server and
//     failed, its answer followed by bytes no request asked for (protocol
//     == reads == limit), each on a connection of its own;
//   - lateSecond: a request succeeds, the unsolicited 500 arrives before
//     the next request, which is charged with it and not sent, so the
//     server reads only the successes (none == reads == limit/2 ==
//     protocol).
func TestFramingBothEngines(t *testing.T) {
	const limit = 12
	for _, tc := range []struct {
		name    string
		mode    hostileMode
		none    int // successes; the rest are protocol failures
		reads   int
		accepts int64
	}{
		{"well-behaved", wellBehaved, limit, limit, 1},
		{"normal keep-alive close after N requests", closeAfterN, limit, limit, limit / hostileN},
		{"two responses per request", twoResponses, 0, limit, limit},
		{"response before the request", earlyBytes, 0, limit, limit},
		{"second response between requests", lateSecond, limit / 2, limit / 2, limit / 2},
		{"408 on an idle connection", idle408, limit, limit, limit},
	} {
		for _, engine := range []struct {
			name string
			run  func(*testing.T, *hostileServer, int) engineCounts
		}{{"loop", runOneSlotLoop}, {"workers", runWorker}} {
			t.Run(tc.name+"/"+engine.name, func(t *testing.T) {
				srv := newHostileServer(t, tc.mode)
				got := engine.run(t, srv, limit)
				var want [protocols.NumKinds]int
				want[protocols.KindNone] = tc.none
				want[protocols.KindProtocol] = limit - tc.none
				if got.kinds != want {
					t.Errorf("counted %v by kind, want %v", got.kinds, want)
				}
				if n := srv.reads.Load(); n != int64(tc.reads) {
					t.Errorf("server read %d requests, want %d (counted %v by kind)", n, tc.reads, got.kinds)
				}
				if n := srv.accepts.Load(); n != tc.accepts {
					t.Errorf("server accepted %d connections, want %d", n, tc.accepts)
				}
				for _, e := range got.protoErr {
					if e != errUnasked.Error() {
						t.Errorf("protocol failure %q, want %q", e, errUnasked.Error())
						break
					}
				}
			})
		}
	}
}

// awaitIdle waits, for a few seconds at most, until what cl's kept-alive
// connection holds is no longer was, and returns it: bytes the server
// wrote have arrived.
func awaitIdle(t *testing.T, cl *http1Client, was idleRead) idleRead {
	t.Helper()
	if !cl.rawOK {
		t.Fatal("no kept-alive connection to look at")
	}
	for range 5000 {
		if r := cl.raw.idle(); r != was {
			return r
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the server's bytes never arrived")
	return was
}

// Bytes that arrive on a kept-alive connection after its response was
// recorded charge the next request, which is not sent, whether the next
// request takes the raw exchange (sent at once) or the usual write (after
// a longer idle time). Its successor goes on a new connection.
func TestHTTP1ChargesUnaskedBytesToTheNextRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		idle bool // the connection sat idle for longer than rawIdleLimit
	}{{"raw exchange", false}, {"after an idle time", true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newHostileServer(t, lateSecond)
			cl := newTestHTTP1(t, http1Target(srv.url(), nil))
			var out protocols.Outcome
			cl.Do(context.Background(), 0, &out)
			if out.Kind != protocols.KindNone || out.Status != 200 || !srv.release() {
				t.Fatalf("first request: %v, status %d; want a success the server follows with a 500", out.Kind, out.Status)
			}
			if r := awaitIdle(t, cl, idleQuiet); r != idleUnasked {
				t.Fatalf("the connection holds %v, want %v", r, idleUnasked)
			}
			if tc.idle {
				cl.lastStart = time.Now().Add(-time.Second)
			}
			cl.Do(context.Background(), 0, &out)
			if out.Kind != protocols.KindProtocol || out.Err != errUnasked || out.BytesSent != 0 {
				t.Errorf("second request: %v (%v), %d bytes sent; want %v, unsent", out.Kind, out.Err, out.BytesSent, protocols.KindProtocol)
			}
			cl.Do(context.Background(), 0, &out)
			if out.Kind != protocols.KindNone || out.Connect <= 0 {
				t.Errorf("third request: %v, connect %v; want a success on a new connection", out.Kind, out.Connect)
			}
			if r, a := srv.reads.Load(), srv.accepts.Load(); r != 2 || a != 2 {
				t.Errorf("server read %d requests on %d connections, want 2 on 2", r, a)
			}
		})
	}
}

// A 408 on an idle kept-alive connection closes it: the next request goes
// on a new connection, without being written on the old one first.
func TestHTTP1TakesAnIdle408ForAClose(t *testing.T) {
	srv := newHostileServer(t, idle408)
	cl := newTestHTTP1(t, http1Target(srv.url(), nil))
	var out protocols.Outcome
	cl.Do(context.Background(), 0, &out)
	if out.Kind != protocols.KindNone || !srv.release() {
		t.Fatalf("first request: %v; want a success the server follows with a 408", out.Kind)
	}
	if r := awaitIdle(t, cl, idleQuiet); r != idleClosing {
		t.Fatalf("the connection holds %v, want %v", r, idleClosing)
	}
	cl.Do(context.Background(), 0, &out)
	if out.Kind != protocols.KindNone || out.Connect <= 0 || out.BytesSent != int64(len(cl.reqs[0].wire)) {
		t.Errorf("after the 408: %v, connect %v, %d bytes sent; want a success on a new connection, sent once",
			out.Kind, out.Connect, out.BytesSent)
	}
}

func TestIs408(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"HTTP/1.1 408", true},
		{"HTTP/1.0 408", true},
		{"HTTP/1.1 500", false},
		{"HTTP/1.1 40", false}, // too short to tell: bytes no request asked for
		{"HTTP/2.0 408", false},
		{"hello world!", false},
	} {
		if got := is408([]byte(tc.in)); got != tc.want {
			t.Errorf("is408(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
