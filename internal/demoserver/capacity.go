package demoserver

import (
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// maxCapacityWorkers bounds --capacity-workers: each worker is only a slot
// in a channel, but a pool larger than this is a typo, not a model.
const maxCapacityWorkers = 100_000

// minServiceTime is the shortest service time the capacity model accepts.
// Below it the timer resolution of the machine, not the model, would set
// the capacity.
const minServiceTime = 10 * time.Microsecond

// CapacityStats are the counters of the capacity model (Config.Capacity);
// /stats shows them under "capacity" only when the model is on.
type CapacityStats struct {
	// RPS, Workers, Queue and ServiceTime describe the model: Workers
	// slots, each holding a request for ServiceTime = Workers/RPS, and at
	// most Queue requests waiting for a slot.
	RPS         float64       `json:"rps"`
	Workers     int           `json:"workers"`
	Queue       int           `json:"queue"`
	ServiceTime time.Duration `json:"service_time_ns"`

	// Queued counts the requests that found every worker busy and waited
	// for one; Served those that completed their service time; Rejected
	// those answered 503 because Queue requests were already waiting.
	Queued   int64 `json:"queued"`
	Served   int64 `json:"served"`
	Rejected int64 `json:"rejected"`

	// Waiting and InService are the requests waiting and in service now;
	// MaxInService is the highest InService seen, never above Workers.
	Waiting      int64 `json:"waiting"`
	InService    int64 `json:"in_service"`
	MaxInService int64 `json:"max_in_service"`
}

// capacityDefaults returns the worker count and queue bound used when
// Config.CapacityWorkers or Config.CapacityQueue is 0: at least 8 workers,
// and more above 8 000 req/s so that the service time stays at 1 ms or more,
// well above timer resolution; a queue holding one second of work, so that
// an overloaded server's latency grows to about a second before it rejects.
func capacityDefaults(rps float64) (workers, queue int) {
	workers = max(8, int(math.Ceil(rps/1000)))
	queue = max(1, int(math.Ceil(rps)))
	return workers, queue
}

// serviceTime is how long each of workers holds a request so that together
// they serve rps requests per second: workers/rps seconds.
func serviceTime(rps float64, workers int) time.Duration {
	return time.Duration(math.Round(float64(workers) / rps * float64(time.Second)))
}

// serviceEnd returns when a worker that finished its previous request's
// service at due (as scheduled) ends the service of a request that arrived
// at arrival and got the worker at now. Service starts at due if the request
// was already waiting then, so a worker that overslept its timer does not
// lose the time: the next request of a busy worker is held that much less,
// and a saturated pool serves exactly workers/service requests a second
// whatever the timer's lateness. The catch-up is capped at maxCatchUp (or
// one service time, if longer), so a worker the machine could not run for a
// long while does not then answer a long burst. A request that found the
// worker idle starts at its arrival.
func serviceEnd(due, arrival, now time.Time, service time.Duration) time.Time {
	start := now.Add(-max(service, maxCatchUp))
	if due.After(start) {
		start = due
	}
	if arrival.After(start) {
		start = arrival
	}
	return start.Add(service)
}

// maxCatchUp is how far behind its schedule a busy worker may fall and still
// make the time up (see serviceEnd). A busy machine delays timers and
// hand-offs by milliseconds, more than a short service time: without enough
// catch-up the pool would serve below its capacity exactly when the
// generator beside it is busiest.
const maxCatchUp = 50 * time.Millisecond

// worker is one slot of the pool; due is the scheduled end of the service
// of its last request.
type worker struct{ due time.Time }

// capacityPool serves requests through a fixed pool of workers with a fixed
// service time (see Config.Capacity).
type capacityPool struct {
	rps     float64
	queue   int64
	service time.Duration
	free    chan *worker

	queued, served, rejected      atomic.Int64
	waiting, inService, maxInServ atomic.Int64
}

// newCapacityPool builds the pool of a validated Config with Capacity > 0.
func newCapacityPool(cfg Config) *capacityPool {
	p := &capacityPool{
		rps:     cfg.Capacity,
		queue:   int64(cfg.CapacityQueue),
		service: serviceTime(cfg.Capacity, cfg.CapacityWorkers),
		free:    make(chan *worker, cfg.CapacityWorkers),
	}
	for range cfg.CapacityWorkers {
		p.free <- &worker{}
	}
	return p
}

var (
	overCapacityBody   = []byte("over capacity\n")
	overCapacityLength = []string{strconv.Itoa(len(overCapacityBody))}
)

// serve holds r for one service time on a worker, waiting for a free one
// first, and reports whether the caller may now answer it. When the queue
// is full it answers 503 itself and returns false. The worker is released
// before the response is written, so the capacity does not depend on how
// fast clients read. A request whose client leaves, or a server closing,
// aborts the handler as hold does, releasing the worker or the queue place.
func (p *capacityPool) serve(w http.ResponseWriter, r *http.Request) bool {
	arrival := time.Now()
	var wk *worker
	select {
	case wk = <-p.free:
	default:
		if p.waiting.Add(1) > p.queue {
			p.waiting.Add(-1)
			p.reject(w)
			return false
		}
		p.queued.Add(1)
		select {
		case wk = <-p.free:
			p.waiting.Add(-1)
		case <-r.Context().Done():
			p.waiting.Add(-1)
			panic(http.ErrAbortHandler)
		}
	}
	defer func() { p.free <- wk }()
	p.enter()
	defer p.inService.Add(-1)
	now := time.Now()
	wk.due = serviceEnd(wk.due, arrival, now, p.service)
	hold(r, wk.due.Sub(now))
	p.served.Add(1)
	return true
}

// enter counts a request into service and keeps the peak.
func (p *capacityPool) enter() {
	n := p.inService.Add(1)
	for {
		peak := p.maxInServ.Load()
		if n <= peak || p.maxInServ.CompareAndSwap(peak, n) {
			return
		}
	}
}

// reject answers 503, as a server whose accept queue is full would.
func (p *capacityPool) reject(w http.ResponseWriter) {
	p.rejected.Add(1)
	hdr := w.Header()
	hdr["Content-Type"] = textPlain
	hdr["Content-Length"] = overCapacityLength
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(overCapacityBody) // a failed write means the client is gone
}

// stats returns the counters.
func (p *capacityPool) stats() *CapacityStats {
	return &CapacityStats{
		RPS:          p.rps,
		Workers:      cap(p.free),
		Queue:        int(p.queue),
		ServiceTime:  p.service,
		Queued:       p.queued.Load(),
		Served:       p.served.Load(),
		Rejected:     p.rejected.Load(),
		Waiting:      p.waiting.Load(),
		InService:    p.inService.Load(),
		MaxInService: p.maxInServ.Load(),
	}
}
