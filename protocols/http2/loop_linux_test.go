//go:build linux

package http2

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/sockets"
	"github.com/loadgate/loadgate/scenarios"
)

// loopTally is what a loop recorded: every outcome, by kind.
type loopTally struct {
	mu       sync.Mutex
	kinds    [protocols.NumKinds]int
	statuses map[int]int
	errs     []string
	connects int // requests charged a connect time
	sent     int64
	received int64
	claimed  int
}

func (lt *loopTally) total() int {
	n := 0
	for _, k := range lt.kinds {
		n += k
	}
	return n
}

// job is a closed-model job of slots streams and limit requests that may
// run for up to `last`, or an open-model one when every is set: limit
// arrivals every `every`.
func (lt *loopTally) job(slots, limit int, every, last time.Duration) *protocols.LoopJob {
	lt.statuses = map[int]int{}
	start := protocols.Now()
	j := &protocols.LoopJob{
		Start: start, Stop: start.Add(last), End: start.Add(last), Slots: slots,
		Claim: func() bool { lt.claimed++; return lt.claimed <= limit },
		Pick:  func() int { return 0 },
		Done: func(_ int, _, _, _ time.Duration, out *protocols.Outcome) {
			lt.mu.Lock()
			defer lt.mu.Unlock()
			lt.kinds[out.Kind]++
			lt.statuses[out.Status]++
			if out.Err != nil {
				lt.errs = append(lt.errs, out.Err.Error())
			}
			if out.Connect > 0 {
				lt.connects++
			}
			lt.sent += out.BytesSent
			lt.received += out.BytesReceived
		},
		InFlight: new(atomic.Int64),
	}
	if every > 0 {
		j.Arrival = func(i int64) (time.Duration, bool) { return time.Duration(i) * every, i < int64(limit) }
		j.Late = func(time.Duration) {}
		j.Sent = new(atomic.Int64)
		j.IdleHandoff = func() {}
	}
	return j
}

func runLoop(t *testing.T, tg *scenarios.Target, job *protocols.LoopJob) {
	t.Helper()
	lp, why := NewLoop(tg, tg.HTTP.Connections)
	if lp == nil {
		t.Fatalf("NewLoop: %s", why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := lp.Run(ctx, job); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func firstErr(errs []string) string {
	if len(errs) == 0 {
		return ""
	}
	return errs[0]
}

// The closed and the open model's requests all succeed over the target's
// connections, each opened once, by the request charged its connect time.
func TestLoopModels(t *testing.T) {
	for _, tc := range []struct {
		name         string
		conns, slots int
		every        time.Duration
	}{
		{"closed, one connection", 1, 8, 0},
		{"closed, three connections", 3, 9, 0},
		{"open, three connections", 3, 50, 200 * time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newH2Server(t, false, hello)
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
			if lt.sent == 0 || lt.received < limit*int64(len("hello")) {
				t.Errorf("bytes sent %d, received %d: the requests carry the connections' bytes", lt.sent, lt.received)
			}
		})
	}
}

// A request body larger than the server's windows goes out as the
// server's WINDOW_UPDATEs allow, whole.
func TestLoopFlowControl(t *testing.T) {
	const size = 3 << 20
	srv := newH2Server(t, false, func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil || n != size {
			http.Error(w, "short body", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, strconv.FormatInt(n, 10))
	})
	tg := h2Target(srv.URL+"/", 1)
	tg.HTTP.Requests[0].Method = "POST"
	tg.HTTP.Requests[0].Body = bytes.Repeat([]byte("b"), size)
	var lt loopTally
	const limit = 6
	runLoop(t, tg, lt.job(3, limit, 0, 30*time.Second))
	if got := lt.kinds[protocols.KindNone]; got != limit {
		t.Fatalf("%d succeeded of %d, statuses %v (errors %q)", got, limit, lt.statuses, firstErr(lt.errs))
	}
	if lt.sent < limit*size {
		t.Errorf("%d bytes sent, want at least the bodies' %d", lt.sent, limit*size)
	}
}

// A server's SETTINGS_MAX_CONCURRENT_STREAMS holds the streams beyond it
// until one ends.
func TestLoopMaxConcurrentStreams(t *testing.T) {
	var now, most atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Millisecond)
		now.Add(-1)
		_, _ = io.WriteString(w, "hello")
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 2}
	srv.Start()
	t.Cleanup(srv.Close)
	var lt loopTally
	const limit = 60
	runLoop(t, h2Target(srv.URL+"/", 1), lt.job(8, limit, 0, 30*time.Second))
	if got := lt.kinds[protocols.KindNone]; got != limit {
		t.Fatalf("%d succeeded of %d (kinds %v, errors %q)", got, limit, lt.kinds, firstErr(lt.errs))
	}
	if m := most.Load(); m > 2 {
		t.Errorf("the server handled %d streams at once, past its limit of 2", m)
	}
}

// Each way a server fails a request ends it in one outcome of the right
// kind: every request sent is recorded once.
func TestLoopFailures(t *testing.T) {
	hdr := func(fields ...string) []byte {
		var b bytes.Buffer
		enc := hpack.NewEncoder(&b)
		for i := 0; i < len(fields); i += 2 {
			_ = enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
		}
		return b.Bytes()
	}
	answer := func(status string, body int) func(*http2.Framer, uint32) {
		return func(fr *http2.Framer, id uint32) {
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hdr(":status", status), EndHeaders: true})
			_ = fr.WriteData(id, true, bytes.Repeat([]byte("x"), body))
		}
	}
	for _, tc := range []struct {
		name   string
		answer func(*http2.Framer, uint32)
		tweak  func(*scenarios.HTTPTarget)
		kind   protocols.ErrorKind
		words  string
	}{
		{"status", answer("500", 3), nil, protocols.KindStatus, ""},
		{"length", answer("200", 3), func(h *scenarios.HTTPTarget) { h.Expect.Length = 5 }, protocols.KindLength, "expect.length"},
		{"max_body", answer("200", 100), func(h *scenarios.HTTPTarget) { h.MaxBody = 10 }, protocols.KindLength, "max_body"},
		{"reset", func(fr *http2.Framer, id uint32) { _ = fr.WriteRSTStream(id, http2.ErrCodeRefusedStream) },
			nil, protocols.KindReset, "REFUSED_STREAM"},
		{"goaway", func(fr *http2.Framer, id uint32) { _ = fr.WriteGoAway(0, http2.ErrCodeNo, []byte("bye")) },
			nil, protocols.KindReset, "GOAWAY"},
		{"no status", func(fr *http2.Framer, id uint32) {
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hdr("content-type", "text/plain"), EndHeaders: true, EndStream: true})
		}, nil, protocols.KindProtocol, ":status"},
		{"data first", func(fr *http2.Framer, id uint32) { _ = fr.WriteData(id, true, []byte("x")) },
			nil, protocols.KindProtocol, "DATA before"},
		{"push", func(fr *http2.Framer, id uint32) {
			_ = fr.WritePushPromise(http2.PushPromiseParam{StreamID: id, PromiseID: 2, BlockFragment: hdr(":status", "200"), EndHeaders: true})
		}, nil, protocols.KindProtocol, "PUSH_PROMISE"},
		{"frame too large", func(fr *http2.Framer, id uint32) {
			_ = fr.WriteRawFrame(http2.FrameData, 0, id, make([]byte, 20000))
		}, nil, protocols.KindProtocol, "frame size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := rawH2Server(t, tc.answer)
			tg := h2Target("http://"+addr+"/", 2)
			if tc.tweak != nil {
				tc.tweak(tg.HTTP)
			}
			var lt loopTally
			const limit = 40
			runLoop(t, tg, lt.job(4, limit, 0, 30*time.Second))
			if got := lt.kinds[tc.kind]; got != limit {
				t.Fatalf("%d of %d requests failed as %v (kinds %v, errors %q)", got, limit, tc.kind, lt.kinds, firstErr(lt.errs))
			}
			if !strings.Contains(firstErr(lt.errs), tc.words) {
				t.Errorf("error %q does not say %q", firstErr(lt.errs), tc.words)
			}
		})
	}
}

// A server that is not an h2c one, or none at all, fails every request
// at connect time, in words that say why.
func TestLoopRefused(t *testing.T) {
	h1 := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(hello)}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
		return ln.Addr().String()
	}
	dead := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		return addr
	}
	for _, tc := range []struct {
		name  string
		addr  func() string
		kind  protocols.ErrorKind
		words string
	}{
		{"HTTP/1.1 server", h1, protocols.KindProtocol, "answered the preface with HTTP/1.x"},
		{"nothing listening", dead, protocols.KindConnect, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lt loopTally
			const limit = 30
			runLoop(t, h2Target("http://"+tc.addr()+"/", 2), lt.job(4, limit, 0, 30*time.Second))
			if got := lt.kinds[tc.kind]; got != limit {
				t.Fatalf("%d of %d requests failed as %v (kinds %v, errors %q)", got, limit, tc.kind, lt.kinds, firstErr(lt.errs))
			}
			if !strings.Contains(firstErr(lt.errs), tc.words) {
				t.Errorf("error %q does not say %q", firstErr(lt.errs), tc.words)
			}
		})
	}
}

// A server that freezes keeps no request from being recorded: those out
// when the phase ends are unfinished, those past their timeout timed out
// and reset, so that the server may let them go.
func TestLoopFrozenServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		kind    protocols.ErrorKind
	}{
		{"phase end", 0, protocols.KindUnfinished},
		{"timeout", 50 * time.Millisecond, protocols.KindTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resets atomic.Int64
			addr := rawH2ServerSeeing(t, func(*http2.Framer, uint32) {}, func(f http2.Frame) {
				if r, ok := f.(*http2.RSTStreamFrame); ok && r.ErrCode == http2.ErrCodeCancel {
					resets.Add(1)
				}
			})
			tg := h2Target("http://"+addr+"/", 2)
			tg.HTTP.Timeout = tc.timeout
			var lt loopTally
			const slots = 6
			runLoop(t, tg, lt.job(slots, 1000, 0, 300*time.Millisecond))
			// Those out at the phase's end, at most one per slot, are
			// unfinished whatever their timeout.
			ended := lt.kinds[tc.kind]
			if tc.kind != protocols.KindUnfinished {
				ended += min(lt.kinds[protocols.KindUnfinished], slots)
			}
			if lt.kinds[tc.kind] == 0 || ended != lt.total() {
				t.Fatalf("kinds %v: want every request %v (errors %q)", lt.kinds, tc.kind, firstErr(lt.errs))
			}
			// Every request claimed was recorded: those the phase's end
			// left out were never claimed.
			if sent := min(lt.claimed, 1000); lt.total() != sent {
				t.Errorf("%d requests recorded, %d sent", lt.total(), sent)
			}
			if tc.kind == protocols.KindTimeout {
				deadline := time.Now().Add(5 * time.Second)
				timedOut := int64(lt.kinds[protocols.KindTimeout])
				for resets.Load() < timedOut && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				if got := resets.Load(); got < timedOut {
					t.Errorf("the server saw %d streams cancelled, want one per request timed out (%d)", got, timedOut)
				}
			}
		})
	}
}

// What the loop cannot do stays with the pool's workers.
func TestLoopUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tweak func(*scenarios.HTTPTarget)
		why   string
	}{
		{"https", func(h *scenarios.HTTPTarget) { h.Requests[0].URL = "https://127.0.0.1:1/" }, "TLS"},
		{"body check", func(h *scenarios.HTTPTarget) { h.Expect.BodyContains = "x" }, "body checks"},
		{"two origins", func(h *scenarios.HTTPTarget) {
			h.Requests = append(h.Requests, scenarios.HTTPRequest{Method: "GET", URL: "http://127.0.0.2:1/", Weight: 1})
		}, "several origins"},
		{"a flow", func(h *scenarios.HTTPTarget) { h.Flow = &scenarios.Flow{} }, "flow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := h2Target("http://127.0.0.1:1/", 1)
			tc.tweak(tg.HTTP)
			lp, why := NewLoop(tg, 1)
			if lp != nil || !strings.Contains(why, tc.why) {
				t.Errorf("NewLoop: loop %v, why %q, want none and %q", lp != nil, why, tc.why)
			}
		})
	}
}

// A name with several addresses, as localhost's ::1 and 127.0.0.1: a
// connection the first refuses goes to the next, and the requests waiting
// for it with it.
func TestLoopNextAddress(t *testing.T) {
	srv := newH2Server(t, false, hello)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	addrs := []*sockets.Addr{sockets.NewAddr("127.0.0.2", port), sockets.NewAddr("127.0.0.1", port)}
	tg := h2Target(srv.URL+"/", 2)
	lp := loopTo(tg.HTTP, "localhost:"+port, addrs, 2)
	var lt loopTally
	const limit = 50
	if err := lp.Run(context.Background(), lt.job(6, limit, 0, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := lt.kinds[protocols.KindNone]; got != limit {
		t.Fatalf("%d succeeded of %d (kinds %v, errors %q)", got, limit, lt.kinds, firstErr(lt.errs))
	}
	if got := srv.connCount(); got != 2 {
		t.Errorf("the server accepted %d connections, want 2", got)
	}
}

// A server that closes its connections gracefully after eight requests
// each (GOAWAY, NO_ERROR, as nginx does after keepalive_requests) refuses
// the streams sent meanwhile (at most the four slots'): they never reached
// it, and go again on a new connection, where they are among its first
// eight. A second refusal of the same request fails it.
func TestLoopGracefulGoAway(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(fr *http2.Framer, id uint32)
		ok     bool
	}{
		{"after each eighth stream", func(fr *http2.Framer, id uint32) {
			if id > 15 {
				return
			}
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte{0x88}, EndHeaders: true, EndStream: true})
			if id == 15 {
				_ = fr.WriteGoAway(15, http2.ErrCodeNo, nil)
			}
		}, true},
		{"before any stream", func(fr *http2.Framer, id uint32) { _ = fr.WriteGoAway(0, http2.ErrCodeNo, nil) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := rawH2Server(t, tc.answer)
			var lt loopTally
			const limit = 40
			runLoop(t, h2Target("http://"+addr+"/", 1), lt.job(4, limit, 0, 30*time.Second))
			if tc.ok && lt.kinds[protocols.KindNone] != limit {
				t.Fatalf("%d succeeded of %d (kinds %v, errors %q)", lt.kinds[protocols.KindNone], limit, lt.kinds, firstErr(lt.errs))
			}
			if !tc.ok && lt.kinds[protocols.KindReset] != limit {
				t.Fatalf("%d reset of %d (kinds %v, errors %q)", lt.kinds[protocols.KindReset], limit, lt.kinds, firstErr(lt.errs))
			}
		})
	}
}
