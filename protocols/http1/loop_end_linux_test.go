//go:build linux

package http1

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// holdServer answers each request after its delay, or only once the test
// is over when the delay is 0, and counts the requests it read.
type holdServer struct {
	requests atomic.Int64
	delay    time.Duration
	release  chan struct{}
}

func newHoldServer(t *testing.T, delay time.Duration) (*holdServer, string) {
	s := &holdServer{delay: delay, release: make(chan struct{})}
	url := newRawServer(t, s.serve).url()
	t.Cleanup(func() { close(s.release) }) // before the listener closes
	return s, url
}

func (s *holdServer) serve(c net.Conn) {
	r := bufio.NewReader(c)
	for readRequest(r) {
		s.requests.Add(1)
		var wait <-chan time.Time
		if s.delay > 0 {
			wait = time.After(s.delay)
		}
		select {
		case <-wait:
		case <-s.release:
			return
		}
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return
		}
	}
}

// awaitCount waits until the server has read want requests, or 10 s: a
// request the loop wrote may still be on its way into the server.
func awaitCount(n *atomic.Int64, want int64) int64 {
	for deadline := time.Now().Add(10 * time.Second); n.Load() != want && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	return n.Load()
}

// latencies records every Done's kind, error and latency.
type latencies struct {
	mu    sync.Mutex
	kinds map[protocols.ErrorKind]int
	errs  map[error]int
	min   time.Duration
	done  int64
}

func (r *latencies) record(job *protocols.LoopJob) {
	r.kinds, r.errs, r.min = map[protocols.ErrorKind]int{}, map[error]int{}, time.Hour
	job.Done = func(_ int, _, latency, _ time.Duration, out *protocols.Outcome) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.kinds[out.Kind]++
		r.errs[out.Err]++
		r.min = min(r.min, latency)
		r.done++
	}
}

// TestLoopPhaseEnd: the loop sends nothing after job.Stop; what is in
// flight then and answered before job.End is a success, what is still
// waiting at job.End is reported once as unfinished, aged from when it
// was due; the server read as many requests as were reported.
func TestLoopPhaseEnd(t *testing.T) {
	const stop = 300 * time.Millisecond
	for _, tc := range []struct {
		name  string
		every time.Duration // between arrivals; 0: the closed model
		delay time.Duration // before the server answers; 0: never
		grace time.Duration // from job.Stop to job.End
		want  protocols.ErrorKind
		err   error
	}{
		{"closed model, answered in the grace", 0, 2 * stop, 30 * time.Second, protocols.KindNone, nil},
		{"open model, answered in the grace", 20 * time.Millisecond, 2 * stop, 30 * time.Second, protocols.KindNone, nil},
		{"closed model, waiting at the end", 0, 0, 200 * time.Millisecond, protocols.KindUnfinished, protocols.ErrUnfinished},
		{"open model, waiting at the end", 20 * time.Millisecond, 0, 200 * time.Millisecond, protocols.KindUnfinished, protocols.ErrUnfinished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, url := newHoldServer(t, tc.delay)
			var lt loopTally
			job := lt.job(3, 1000, tc.every)
			job.Stop = job.Start.Add(stop)
			job.End = job.Stop.Add(tc.grace)
			var oldest atomic.Int64
			job.Oldest = &oldest
			var rec latencies
			rec.record(job)
			runLoop(t, http1Target(url, nil), job)
			if rec.done == 0 || rec.kinds[tc.want] != int(rec.done) || rec.errs[tc.err] != int(rec.done) {
				t.Fatalf("%d done: kinds %v, errors %v; want all of kind %v (%v)", rec.done, rec.kinds, rec.errs, tc.want, tc.err)
			}
			if tc.every == 0 && rec.done != 3 {
				t.Errorf("closed model: %d requests on 3 slots, whose answers come after the stop", rec.done)
			}
			if tc.want == protocols.KindUnfinished && rec.min < tc.grace {
				t.Errorf("an unfinished request aged %v, less than the grace %v after its phase stopped sending", rec.min, tc.grace)
			}
			if got := awaitCount(&srv.requests, rec.done); got != rec.done {
				t.Errorf("the server read %d requests, the loop reported %d", got, rec.done)
			}
			if n, o := lt.inFlight.Load(), oldest.Load(); n != 0 || o != protocols.NoneWaiting {
				t.Errorf("after the run: %d in flight, oldest %d", n, o)
			}
		})
	}
}

// TestLoopStopsWithContext: a cancelled job reports the requests in flight
// as unfinished at once, without waiting for its end.
func TestLoopStopsWithContext(t *testing.T) {
	srv, url := newHoldServer(t, 0)
	lp, _ := NewLoop(http1Target(url, nil))
	var lt loopTally
	job := lt.job(5, 1000, 0)
	job.Stop, job.End = job.Start.Add(time.Hour), job.Start.Add(time.Hour)
	var rec latencies
	rec.record(job)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- lp.Run(ctx, job) }()
	for lt.inFlight.Load() < 5 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if n := lt.inFlight.Load(); n != 0 || rec.done != 5 || rec.errs[protocols.ErrStopped] != 5 {
		t.Errorf("after cancel: %d in flight, %d done (kinds %v, errors %v); want the 5 unfinished", n, rec.done, rec.kinds, rec.errs)
	}
	if got := awaitCount(&srv.requests, rec.done); got != rec.done {
		t.Errorf("the server read %d requests, the loop reported %d", got, rec.done)
	}
}

// orderServer answers a request for path p when the test sends p on
// answer.
type orderServer struct {
	mu     sync.Mutex
	held   map[string]chan struct{}
	closed chan struct{}
}

func (s *orderServer) hold(path string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[path] == nil {
		s.held[path] = make(chan struct{})
	}
	return s.held[path]
}

func (s *orderServer) serve(c net.Conn) {
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !readRequest(r) {
		return
	}
	select {
	case <-s.hold(strings.Fields(line)[1]):
	case <-s.closed:
		return
	}
	_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
}

// TestLoopOldest: job.Oldest is the due time of the oldest request in
// flight, whichever is answered first, and NoneWaiting when none is.
func TestLoopOldest(t *testing.T) {
	srv := &orderServer{held: map[string]chan struct{}{}, closed: make(chan struct{})}
	url := newRawServer(t, srv.serve).url()
	t.Cleanup(func() { close(srv.closed) })
	tg := http1Target(url+"a", func(h *scenarios.HTTPTarget) {
		for _, p := range []string{"b", "c"} {
			h.Requests = append(h.Requests, scenarios.HTTPRequest{Method: "GET", URL: url + p, Weight: 1})
		}
	})
	var lt loopTally
	const gap = 20 * time.Millisecond
	job := lt.job(4, 3, gap)
	var picked int
	job.Pick = func() int { picked++; return picked - 1 } // a, b, c
	var oldest atomic.Int64
	oldest.Store(-1)
	job.Oldest = &oldest
	lp, _ := NewLoop(tg)
	done := make(chan error, 1)
	go func() { done <- lp.Run(context.Background(), job) }()
	await := func(n int64, want int64, when string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); lt.inFlight.Load() != n; {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d in flight, want %d", when, lt.inFlight.Load(), n)
			}
			time.Sleep(time.Millisecond)
		}
		if got := oldest.Load(); got != want {
			t.Errorf("%s: oldest %v, want %v", when, time.Duration(got), time.Duration(want))
		}
	}
	await(3, 0, "all waiting")
	close(srv.hold("/b"))
	await(2, 0, "b answered")
	close(srv.hold("/a"))
	await(1, int64(2*gap), "a and b answered")
	close(srv.hold("/c"))
	await(0, protocols.NoneWaiting, "all answered")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if lt.kinds[protocols.KindNone] != 3 || oldest.Load() != protocols.NoneWaiting {
		t.Errorf("kinds %v, oldest %d after the run", lt.kinds, oldest.Load())
	}
}
