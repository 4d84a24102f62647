package runner

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// The open model's workers pace themselves, leader and followers: of the
// workers that are free, one (the leader) holds the schedule. It takes the
// next arrival, waits until it is due, passes the schedule to another free
// worker and sends the arrival itself. The send thus happens on the
// goroutine that waited, with no hand-off between the wake-up and the
// write, and the next leader wakes while the previous arrival is on the
// wire, not after it was due. Arrivals already due when the schedule is
// passed (it fell behind) are dealt to the free workers at once, so that
// they leave together. When no worker is free, the schedule waits
// for the first one to finish — the arrivals due meanwhile then leave in a
// burst, each still timed from its schedule, which is what corrects
// coordinated omission — and once the next arrival is overdue by
// spawnPatience a new connection is opened for it, up to max_in_flight.

// relay is the schedule's baton and what its holder needs.
type relay struct {
	pr      *phaseRun
	pace    pacer
	limit   int           // the most workers (max_in_flight)
	sent    *atomic.Int64 // arrivals taken for sending
	workers atomic.Int64  // workers started
	// spawn starts another worker, leading when lead is set.
	spawn func(lead bool) bool

	mu      sync.Mutex
	leading bool // a worker holds the schedule
	waiting int  // free workers parked for the baton
	ended   bool
	baton   chan time.Duration // one per parked worker: an arrival, or leadToken
	vacant  chan struct{}      // wakes the spawner: the schedule has no holder
	done    chan struct{}      // closed when the schedule has no more arrivals
	alarm   *alarm             // the holder's precise wait; nil: the clock's timers

	// Owned by whoever holds the schedule.
	backlog bool // working off arrivals that waited for a busy worker
}

func newRelay(pr *phaseRun, limit int, sent *atomic.Int64) *relay {
	return &relay{pr: pr, pace: newPacer(pr.phase), limit: limit, sent: sent,
		baton: make(chan time.Duration, limit), vacant: make(chan struct{}, 1), done: make(chan struct{})}
}

// end stops the schedule: every free worker returns, busy ones after
// their request.
func (r *relay) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended {
		r.ended = true
		close(r.done)
	}
}

// schedule starts the phase's first workers and then opens connections
// for arrivals that no worker was free to send, until the schedule ends.
// What to do is decided by pacer.next, waitStep and vacancy; this code only
// carries it out.
func (pr *phaseRun) schedule(ctx context.Context, limit int, sent *atomic.Int64) {
	r := newRelay(pr, limit, sent)
	r.spawn = func(lead bool) bool {
		cl, err := pr.addClient()
		if err != nil {
			return false
		}
		w := pr.spawned - 1
		r.workers.Add(1)
		pr.wg.Add(1)
		go func() {
			defer pr.wg.Done()
			sh := pr.shards[w%len(pr.shards)]
			if pr.flow {
				pr.openFlowWorker(ctx, r, cl.(protocols.Iterator), sh, lead)
				return
			}
			pr.openWorker(ctx, r, w, cl, sh, lead)
		}()
		return true
	}
	if pc, ok := pr.clock.(preciseClock); ok {
		if a, err := pc.newAlarm(); err == nil {
			r.alarm = a
			// Closing it wakes a holder waiting when the phase ends early.
			defer a.close()
		}
	}
	r.leading = true
	for i := range initialWorkers(pr.phase.Rate, limit) {
		if !r.spawn(i == 0) {
			r.end()
			return
		}
	}
	r.superviseVacancy(ctx)
}

// superviseVacancy opens a connection, once the next arrival is overdue by
// spawnPatience, whenever no worker holds the schedule.
func (r *relay) superviseVacancy(ctx context.Context) {
	pr := r.pr
	timer := pr.clock.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-r.vacant:
		case <-r.done:
			return
		case <-ctx.Done():
			return
		case <-pr.dataEnd:
			return
		}
		for {
			r.mu.Lock()
			if r.leading || r.ended {
				r.mu.Unlock()
				break
			}
			elapsed := pr.clock.Since(pr.start)
			due, _, stop := r.pace.next(r.sent.Load(), elapsed)
			if stop {
				// No arrival is left for a new connection; the next
				// worker to take one ends the schedule.
				r.mu.Unlock()
				break
			}
			spawn, wait := vacancy(pr.spawned, r.limit, elapsed-due)
			if spawn {
				r.leading = true
			}
			r.mu.Unlock()
			if spawn {
				if !r.spawn(true) {
					r.end()
					return
				}
				break
			}
			if wait == waitForever {
				break
			}
			timer.Reset(wait)
			select {
			case <-timer.C():
			case <-r.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}
}

// take gives a free worker its next arrival: it waits for the schedule
// (unless it already holds it) or for an arrival dealt to it, waits until
// the arrival is due, and passes the schedule on. ok is false when the
// worker is to return.
func (r *relay) take(ctx context.Context, lead bool, timer Timer) (due time.Duration, ok bool) {
	pr := r.pr
	if ctx.Err() != nil {
		// The phase ended: a worker that never has to wait (the schedule
		// is far behind) learns it here.
		return 0, false
	}
	if !lead {
		if due, lead, ok = r.await(ctx); !ok || !lead {
			return due, ok
		}
	}
	if pr.exhausted.Load() {
		// A flow's data ran out: the phase has nothing more to send.
		r.end()
		return 0, false
	}
	i := r.sent.Load()
	due, wait, stop := r.pace.next(i, pr.clock.Since(pr.start))
	if stop {
		r.end()
		return 0, false
	}
	if wait > 0 {
		if !r.waitUntil(ctx, due, timer) {
			return 0, false
		}
		pr.schedLag.Record(max(0, pr.clock.Since(pr.start)-due))
		r.backlog = false // caught up with the schedule
	} else {
		r.late(-wait)
	}
	r.sent.Store(i + 1)
	// The schedule is passed on in the last microseconds before the
	// arrival, not after it: waking the next holder is then not between
	// the arrival's time and its send.
	r.pass()
	for pr.clock.Since(pr.start) < due {
	}
	return due, true
}

// late books an arrival taken late by lateness, and whether another
// connection was free as well.
func (r *relay) late(lateness time.Duration) {
	pr := r.pr
	if !r.backlog {
		// Not held back by busy workers, yet late: the generator itself
		// fell behind.
		pr.schedLag.Record(lateness)
	}
	if pr.inFlight.Load() < r.workers.Load()-1 {
		// Another connection was free as well: when arrivals are still
		// dropped, the pacing, not the connections, is the limit.
		pr.idleHandoffs++
	}
}

// leadToken, on the baton, calls a parked worker to hold the schedule;
// any other value is an arrival dealt to it, due at that offset.
const leadToken = time.Duration(-1)

// await parks a free worker until it is dealt an arrival or called to
// hold the schedule, or makes it the holder at once when nobody holds it;
// ok is false when the schedule ended meanwhile.
func (r *relay) await(ctx context.Context) (due time.Duration, lead, ok bool) {
	r.mu.Lock()
	switch {
	case r.ended:
		r.mu.Unlock()
		return 0, false, false
	case !r.leading:
		r.leading = true
		r.mu.Unlock()
		return 0, true, true
	}
	r.waiting++
	r.mu.Unlock()
	select {
	case due := <-r.baton:
		return due, due == leadToken, true
	case <-r.done:
	case <-ctx.Done():
	case <-r.pr.dataEnd:
	}
	return 0, false, false
}

// pass deals the arrivals already due to parked free workers — a
// schedule that fell behind catches up in parallel, not one hand-off at
// a time — then hands the schedule to another parked worker, or leaves it
// vacant for the first busy one to finish (or the spawner) to take.
func (r *relay) pass() {
	pr := r.pr
	r.mu.Lock()
	for r.waiting > 0 {
		i := r.sent.Load()
		due, wait, stop := r.pace.next(i, pr.clock.Since(pr.start))
		if stop || wait > 0 || pr.exhausted.Load() {
			break
		}
		r.late(-wait)
		r.sent.Store(i + 1)
		r.waiting--
		r.baton <- due // never blocks: one slot per parked worker
	}
	if r.waiting > 0 {
		r.waiting--
		r.mu.Unlock()
		r.baton <- leadToken
		return
	}
	r.leading = false
	r.backlog = true
	r.mu.Unlock()
	select {
	case r.vacant <- struct{}{}:
	default:
	}
}

// waitUntil waits until due (an offset from the phase's start), or until
// the last microseconds before it that are left to a spin, in the stages
// waitStep decides; false when the phase ended first.
func (r *relay) waitUntil(ctx context.Context, due time.Duration, timer Timer) bool {
	pr := r.pr
	for {
		kind, d := waitStep(due-pr.clock.Since(pr.start), r.alarm != nil)
		switch kind {
		case waitDone, waitSpin:
			return true
		case waitTimer:
			timer.Reset(d)
			select {
			case <-ctx.Done():
				timer.Stop()
				return false
			case <-timer.C():
			}
		case waitAlarm:
			if r.alarm.wait(d) != nil {
				return false
			}
		}
	}
}

// openWorker sends the arrivals it takes from the schedule until the
// schedule ends; lead says it starts holding the schedule.
func (pr *phaseRun) openWorker(ctx context.Context, r *relay, w int, cl protocols.Client, sh *shard, lead bool) {
	rng := rand.New(rand.NewPCG(uint64(w), 0x9e3779b97f4a7c15))
	timer := pr.clock.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	wait := pr.board.worker()
	var out protocols.Outcome
	for {
		due, ok := r.take(ctx, lead, timer)
		if !ok {
			return
		}
		lead = false
		req := pr.pick(rng)
		pr.inFlight.Add(1)
		waitingSince(wait, due)
		lag := pr.clock.Since(pr.start) - due
		cl.Do(pr.reqCtx, req, &out)
		// Latency runs from the scheduled time, not from when the request
		// finally left: a request that waited behind a stall was slow for
		// the user who sent it, even if the server answered it quickly.
		at := pr.settle(&out, pr.clock.Since(pr.start))
		sh.record(req, at, at-due, max(lag, 0), &out)
		idle(wait)
		pr.inFlight.Add(-1)
	}
}
