// Package queueserver is an HTTP/1.1 server with a known capacity and an
// unbounded queue: K workers, each holding a request for a fixed service
// time, behind a FIFO that never refuses (no 503 while it runs), as a Tomcat executor or
// an asyncio server behave. Past its capacity of K/service requests a
// second its queue, and every request's latency, grows without limit, and
// what an overloaded load test leaves in the queue is still served after
// the load stops: the server a capacity search must not be fooled by.
//
// The built-in server's --capacity model (internal/demoserver) bounds its
// queue and answers 503 beyond it; this one is its unbounded counterpart,
// for bench/queueserver and bench/queuecapacity.sh.
package queueserver

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"
)

// Stats are the server's counters since it started (GET /stats).
type Stats struct {
	Workers int           `json:"workers"`
	Service time.Duration `json:"service_ns"` // each request's service time
	// Received counts the requests that reached the queue, Answered those
	// whose response was written.
	Received int64 `json:"received"`
	Answered int64 `json:"answered"`
	// Gone counts the answered requests whose client had already left:
	// served all the same, as the unbounded queue does not look.
	Gone      int64 `json:"gone"`
	Waiting   int64 `json:"waiting"`    // in the queue now
	InService int64 `json:"in_service"` // held by a worker now
}

// Server is the queueing model; its zero value is not usable, New makes one.
type Server struct {
	workers int
	service time.Duration
	// queue is unbuffered: a request waits in its send, and a channel's
	// waiting senders are served first come, first served, however many
	// there are, so it is an unbounded FIFO.
	queue chan *job
	ctx   context.Context

	received, answered, gone, started, finished atomic.Int64
}

// job is one request handed to a worker; done is closed when its service
// has ended.
type job struct {
	arrived time.Time
	done    chan struct{}
}

// New returns a server of workers workers (≥ 1) with service time service
// (> 0); its workers run until ctx is done.
func New(ctx context.Context, workers int, service time.Duration) *Server {
	s := &Server{workers: workers, service: service, queue: make(chan *job), ctx: ctx}
	for range workers {
		go s.work(ctx)
	}
	return s
}

// Capacity is the saturated throughput, requests per second: K / service.
func (s *Server) Capacity() float64 { return float64(s.workers) / s.service.Seconds() }

// work is one worker: it takes the oldest waiting request and holds it for
// one service time, back to back.
func (s *Server) work(ctx context.Context) {
	var due time.Time // the scheduled end of the last service
	for {
		var j *job
		select {
		case <-ctx.Done():
			return
		case j = <-s.queue:
		}
		s.started.Add(1)
		due = serviceEnd(due, j.arrived, time.Now(), s.service)
		t := time.NewTimer(time.Until(due))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		s.finished.Add(1)
		close(j.done)
	}
}

// serviceEnd is when a worker whose last service was scheduled to end at
// due ends the one of a request that arrived at arrival and that it took at
// now. A request already waiting at due starts then, not when the
// worker's late timer woke it, so a saturated pool serves exactly K/service
// a second whatever its timers' lateness; one that found the worker idle
// starts on arrival. The catch-up is capped at one service time, so a
// worker the machine did not run for a while answers one request at once,
// not a burst.
func serviceEnd(due, arrival, now time.Time, service time.Duration) time.Time {
	start := now.Add(-service)
	if due.After(start) {
		start = due
	}
	if arrival.After(start) {
		start = arrival
	}
	return start.Add(service)
}

var body = []byte("ok\n")

// ServeHTTP answers GET /stats with the Stats, and any other request with
// 200 "ok" once a worker has served it. Only a server stopping (its
// context done) answers 503, to the requests it will never serve.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/stats" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Stats())
		return
	}
	s.received.Add(1)
	j := &job{arrived: time.Now(), done: make(chan struct{})}
	select {
	case s.queue <- j:
	case <-s.ctx.Done():
		http.Error(w, "stopping", http.StatusServiceUnavailable)
		return
	}
	select {
	case <-j.done:
	case <-s.ctx.Done():
		http.Error(w, "stopping", http.StatusServiceUnavailable)
		return
	}
	if r.Context().Err() != nil {
		s.gone.Add(1)
	}
	s.answered.Add(1) // before the write, so a client that has its answer sees it counted
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write(body)
}

// Stats are the counters now.
func (s *Server) Stats() Stats {
	fin := s.finished.Load()
	st := s.started.Load()
	return Stats{Workers: s.workers, Service: s.service,
		Received: s.received.Load(), Answered: s.answered.Load(), Gone: s.gone.Load(),
		Waiting: s.received.Load() - st, InService: st - fin}
}
