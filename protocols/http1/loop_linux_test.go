//go:build linux

package http1

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	connects int // requests that opened a connection
	lags     []time.Duration
	inFlight atomic.Int64
	sent     atomic.Int64
	claimed  int
}

// job is a closed-model job of slots connections and limit requests, or
// an open-model one when every is set: limit arrivals every `every`.
func (lt *loopTally) job(slots, limit int, every time.Duration) *protocols.LoopJob {
	lt.statuses = map[int]int{}
	start := protocols.Now()
	j := &protocols.LoopJob{
		Start: start, Stop: start.Add(30 * time.Second), End: start.Add(30 * time.Second), Slots: slots,
		Claim: func() bool { lt.claimed++; return lt.claimed <= limit },
		Pick:  func() int { return 0 },
		Done: func(_ int, _, _, lag time.Duration, out *protocols.Outcome) {
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
			lt.lags = append(lt.lags, lag)
		},
		InFlight: &lt.inFlight,
	}
	if every > 0 {
		j.Arrival = func(i int64) (time.Duration, bool) { return time.Duration(i) * every, i < int64(limit) }
		j.Late = func(time.Duration) {}
		j.Sent = &lt.sent
		j.IdleHandoff = func() {}
	}
	return j
}

func runLoop(t *testing.T, tg *scenarios.Target, job *protocols.LoopJob) {
	t.Helper()
	lp, why := NewLoop(tg)
	if lp == nil {
		t.Fatalf("NewLoop: %s", why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := lp.Run(ctx, job); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestLoopClosedModel(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keepalive bool
		body      string
		chunked   bool
	}{
		{"keep-alive", true, "hello", false},
		{"new connection per request", false, "hello", false},
		{"chunked", true, strings.Repeat("chunk of a body ", 1000), true},
		{"large body", true, strings.Repeat("x", 200<<10), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
				if tc.chunked {
					w.(http.Flusher).Flush() // no Content-Length: the body goes chunked
				}
				_, _ = w.Write([]byte(tc.body))
			})
			tg := http1Target(srv.URL+"/", func(h *scenarios.HTTPTarget) { h.Keepalive = tc.keepalive })
			var lt loopTally
			const slots, limit = 4, 300
			runLoop(t, tg, lt.job(slots, limit, 0))
			if got := lt.kinds[protocols.KindNone]; got != limit {
				t.Fatalf("%d succeeded of %d (kinds %v, errors %q)", got, limit, lt.kinds, first(lt.errs))
			}
			if lt.statuses[200] != limit || srv.requests.Load() != limit {
				t.Errorf("statuses %v, server served %d, want %d 200s", lt.statuses, srv.requests.Load(), limit)
			}
			accepts := srv.accepts.Load()
			if tc.keepalive && accepts > slots || !tc.keepalive && accepts != limit {
				t.Errorf("server accepted %d connections for %d requests on %d slots (keepalive %v)", accepts, limit, slots, tc.keepalive)
			}
			if int64(lt.connects) != accepts {
				t.Errorf("%d requests timed a connect, server accepted %d connections", lt.connects, accepts)
			}
			if n := lt.inFlight.Load(); n != 0 {
				t.Errorf("in flight after the run: %d", n)
			}
		})
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func TestLoopOpenModelSendsEveryArrival(t *testing.T) {
	srv := newCountingServer(t, hello)
	tg := http1Target(srv.URL+"/", nil)
	var lt loopTally
	const arrivals = 200
	runLoop(t, tg, lt.job(8, arrivals, 200*time.Microsecond))
	if lt.sent.Load() != arrivals || lt.kinds[protocols.KindNone] != arrivals {
		t.Fatalf("sent %d, succeeded %d of %d arrivals (kinds %v, errors %q)", lt.sent.Load(), lt.kinds[protocols.KindNone], arrivals, lt.kinds, first(lt.errs))
	}
	for _, lag := range lt.lags {
		if lag < 0 {
			t.Fatalf("negative send lag %v", lag)
		}
	}
}

func TestLoopDeadServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tg := http1Target("http://"+addr+"/", nil)
	var lt loopTally
	runLoop(t, tg, lt.job(3, 20, 0))
	if lt.kinds[protocols.KindConnect] != 20 {
		t.Fatalf("kinds %v, want 20 connect failures", lt.kinds)
	}
	if want := "dial tcp " + addr + ": connect: connection refused"; lt.errs[0] != want {
		t.Errorf("error %q, want %q", lt.errs[0], want)
	}
}

func TestLoopFailures(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	for _, tc := range []struct {
		name  string
		serve func(net.Conn)
		mod   func(h *scenarios.HTTPTarget)
		want  protocols.ErrorKind
		err   string
	}{
		{"status", answerOnce("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n"), nil, protocols.KindStatus, ""},
		{"length", answerOnce(ok), func(h *scenarios.HTTPTarget) { h.Expect.Length = 3 }, protocols.KindLength, "expect.length"},
		{"garbage", answerOnce("SMTP ready\r\n\r\n"), nil, protocols.KindProtocol, "http/1.1 response"},
		{"closed before reply", func(c net.Conn) { readRequest(bufio.NewReader(c)) }, nil, protocols.KindReset, "before replying"},
		{"closed mid-reply", answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nhel"), nil, protocols.KindReset, "middle of the reply"},
		{"timeout", func(c net.Conn) { readRequest(bufio.NewReader(c)); time.Sleep(time.Second) },
			func(h *scenarios.HTTPTarget) { h.Timeout = 50 * time.Millisecond }, protocols.KindTimeout, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := http1Target(newRawServer(t, tc.serve).url(), tc.mod)
			var lt loopTally
			runLoop(t, tg, lt.job(2, 4, 0))
			if lt.kinds[tc.want] != 4 {
				t.Fatalf("kinds %v (errors %q), want 4 of kind %v", lt.kinds, first(lt.errs), tc.want)
			}
			if tc.err != "" && !strings.Contains(first(lt.errs), tc.err) {
				t.Errorf("error %q, want it to say %q", first(lt.errs), tc.err)
			}
		})
	}
}

// TestLoopRetriesClosedKeepAlive: a server that closes each kept-alive
// connection after one answer, without saying so, costs the loop a retry
// on a new connection, not a failure.
func TestLoopRetriesClosedKeepAlive(t *testing.T) {
	url := newRawServer(t, answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")).url()
	tg := http1Target(url, nil)
	var lt loopTally
	runLoop(t, tg, lt.job(1, 30, 0))
	if lt.kinds[protocols.KindNone] != 30 {
		t.Fatalf("kinds %v (errors %q), want 30 successes", lt.kinds, first(lt.errs))
	}
}

func TestLoopUnsupported(t *testing.T) {
	for _, tc := range []struct {
		url string
		mod func(h *scenarios.HTTPTarget)
	}{
		{"http://127.0.0.1:1/", func(h *scenarios.HTTPTarget) { h.Expect.BodyContains = "x" }},
		{"http://127.0.0.1:1/", func(h *scenarios.HTTPTarget) { h.HTTP2 = true }},
	} {
		if lp, why := NewLoop(http1Target(tc.url, tc.mod)); lp != nil || why == "" {
			t.Errorf("%s: NewLoop gave a loop (%q), want the workers", tc.url, why)
		}
	}
	if lp, why := NewLoop(http1Target("http://[::1]:1/", nil)); lp == nil {
		t.Errorf("an IPv6 literal: %s", why)
	}
}

// TestLoopResponsesInPieces: responses that arrive a few bytes at a time,
// each piece a new edge of the socket, are put together, whatever framing
// they use.
func TestLoopResponsesInPieces(t *testing.T) {
	for _, resp := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nT: v\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nuntil the server closes",
	} {
		url := newRawServer(t, func(c net.Conn) {
			r := bufio.NewReader(c)
			for readRequest(r) {
				for i := 0; i < len(resp); i += 3 {
					if _, err := c.Write([]byte(resp[i:min(i+3, len(resp))])); err != nil {
						return
					}
					time.Sleep(100 * time.Microsecond)
				}
				if strings.HasPrefix(resp, "HTTP/1.0") {
					return
				}
			}
		}).url()
		var lt loopTally
		runLoop(t, http1Target(url, nil), lt.job(2, 6, 0))
		if lt.kinds[protocols.KindNone] != 6 {
			t.Errorf("%q: kinds %v (errors %q), want 6 successes", resp[:20], lt.kinds, first(lt.errs))
		}
	}
}

// stampServer answers every request on a kept-alive connection and
// records, per connection, when each request arrived.
type stampServer struct {
	mu    sync.Mutex
	conns [][]time.Time
}

func (s *stampServer) serve(c net.Conn) {
	s.mu.Lock()
	k := len(s.conns)
	s.conns = append(s.conns, nil)
	s.mu.Unlock()
	r := bufio.NewReader(c)
	for readRequest(r) {
		s.mu.Lock()
		s.conns[k] = append(s.conns[k], protocols.Now())
		s.mu.Unlock()
		if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
			return
		}
	}
}

// TestLoopThinkAndRamp: a slot waits its think time after each response,
// and starts no sooner than its start time. Only lower bounds are checked:
// a busy machine makes the waits longer, never shorter.
func TestLoopThinkAndRamp(t *testing.T) {
	var srv stampServer
	url := newRawServer(t, srv.serve).url()
	const slots, think, step = 3, 20 * time.Millisecond, 30 * time.Millisecond
	var lt loopTally
	job := lt.job(slots, 9, 0)
	job.Think = think
	job.StartAt = func(i int) time.Duration { return time.Duration(i) * step }
	runLoop(t, http1Target(url, nil), job)
	if lt.kinds[protocols.KindNone] != 9 {
		t.Fatalf("kinds %v (errors %q), want 9 successes", lt.kinds, first(lt.errs))
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.conns) != slots {
		t.Fatalf("%d connections, want one per slot (%d)", len(srv.conns), slots)
	}
	var firsts []time.Time
	for k, reqs := range srv.conns {
		firsts = append(firsts, reqs[0])
		for j := 1; j < len(reqs); j++ {
			if gap := reqs[j].Sub(reqs[j-1]); gap < think {
				t.Errorf("connection %d: %v between requests %d and %d, less than the think time %v", k, gap, j-1, j, think)
			}
		}
	}
	slices.SortFunc(firsts, func(a, b time.Time) int { return a.Compare(b) })
	for k := 1; k < slots; k++ {
		if at := firsts[k].Sub(job.Start); at < time.Duration(k)*step {
			t.Errorf("slot %d's first request came %v after the start, before its start time %v", k, at, time.Duration(k)*step)
		}
	}
}

func TestLoopAddrs(t *testing.T) {
	lookup := func(ips ...string) sockets.LookupFunc {
		return func(context.Context, string, string) ([]netip.Addr, error) {
			if len(ips) == 0 {
				return nil, errors.New("no such host")
			}
			var out []netip.Addr
			for _, ip := range ips {
				out = append(out, netip.MustParseAddr(ip))
			}
			return out, nil
		}
	}
	for _, tc := range []struct {
		url    string
		lookup sockets.LookupFunc
		want   int // addresses; 0: the workers'
	}{
		{"http://127.0.0.1:8080/", nil, 1}, // no lookup for an address
		{"http://[::1]/", nil, 1},
		{"http://localhost:8080/", lookup("::1", "127.0.0.1"), 2},
		{"http://api.test/", lookup("192.0.2.10"), 0},                // beyond the machine
		{"http://mixed.test/", lookup("127.0.0.1", "192.0.2.10"), 0}, // partly beyond
		{"http://nowhere.test/", lookup(), 0},
	} {
		u, _ := url.Parse(tc.url)
		addrs, why := loopAddrs(u, tc.lookup)
		if len(addrs) != tc.want || (tc.want == 0) != (why != "") {
			t.Errorf("%s: %d addresses (%q), want %d", tc.url, len(addrs), why, tc.want)
		}
	}
}

// TestLoopTriesEveryAddress: when the first address of a name refuses,
// the next gets the request, as a dialer tries them in turn; when all
// refuse, the request failed to connect.
func TestLoopTriesEveryAddress(t *testing.T) {
	srv := newCountingServer(t, hello)
	live := srv.Listener.Addr().(*net.TCPAddr).Port
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr := func(port int) *sockets.Addr { return sockets.NewAddr("127.0.0.1", strconv.Itoa(port)) }
	for _, tc := range []struct {
		name  string
		socks []*sockets.Addr
		want  protocols.ErrorKind
	}{
		{"the second answers", []*sockets.Addr{addr(dead), addr(live)}, protocols.KindNone},
		{"none answers", []*sockets.Addr{addr(dead), addr(dead)}, protocols.KindConnect},
	} {
		lp, why := loopTo(http1Target(srv.URL+"/", func(h *scenarios.HTTPTarget) { h.Keepalive = false }).HTTP, nil, "localhost", tc.socks)
		if lp == nil {
			t.Fatal(why)
		}
		var lt loopTally
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := lp.Run(ctx, lt.job(2, 10, 0)); err != nil {
			t.Fatal(err)
		}
		cancel()
		if lt.kinds[tc.want] != 10 {
			t.Errorf("%s: kinds %v (errors %q), want 10 of kind %v", tc.name, lt.kinds, first(lt.errs), tc.want)
		}
	}
}

// TestLoopLocalhost: a target named localhost runs on the loop, whichever
// of its addresses the server listens on.
func TestLoopLocalhost(t *testing.T) {
	srv := newCountingServer(t, hello)
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	var lt loopTally
	runLoop(t, http1Target("http://localhost:"+port+"/", nil), lt.job(2, 20, 0))
	if lt.kinds[protocols.KindNone] != 20 {
		t.Errorf("kinds %v (errors %q), want 20 successes", lt.kinds, first(lt.errs))
	}
}

// TestLoopReportsItsThreadCPU: the loop says once, as it returns, how much
// CPU its thread spent on the job.
func TestLoopReportsItsThreadCPU(t *testing.T) {
	srv := newCountingServer(t, hello)
	var lt loopTally
	job := lt.job(2, 500, 0)
	var calls int
	var cpu time.Duration
	job.Busy = func(d time.Duration) { calls++; cpu = d }
	start := time.Now()
	runLoop(t, http1Target(srv.URL+"/", nil), job)
	wall := time.Since(start)
	if lt.kinds[protocols.KindNone] != 500 {
		t.Fatalf("kinds %v (errors %q), want 500 successes", lt.kinds, first(lt.errs))
	}
	if calls != 1 || cpu <= 0 || cpu > wall {
		t.Errorf("Busy called %d times, last with %v over a run of %v; want once, with some CPU and no more than the run's time", calls, cpu, wall)
	}
}
