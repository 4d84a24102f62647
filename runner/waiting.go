package runner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
)

// A request still waiting for its answer is evidence before it ends: its
// age is a lower bound of its latency. A server that freezes answers
// nothing, so a phase that looked only at completed requests would see
// "no data" exactly when it matters; the board lets the collector see the
// requests in flight every tick.

// waitBoard holds, for each worker and each event loop of a phase, when
// its requests in flight were due. Workers and loops write their own
// entry; the collector reads them all once a tick.
type waitBoard struct {
	mu      sync.Mutex
	workers []*atomic.Int64 // due time + 1, ns since the phase's start; 0 when idle
	loops   []*atomic.Int64 // oldest due time, ns since the phase's start; protocols.NoneWaiting when idle
}

// worker is the entry of one more worker, idle.
func (b *waitBoard) worker() *atomic.Int64 {
	e := new(atomic.Int64)
	b.mu.Lock()
	b.workers = append(b.workers, e)
	b.mu.Unlock()
	return e
}

// loop is the entry of one more event loop, idle.
func (b *waitBoard) loop() *atomic.Int64 {
	e := new(atomic.Int64)
	e.Store(protocols.NoneWaiting)
	b.mu.Lock()
	b.loops = append(b.loops, e)
	b.mu.Unlock()
	return e
}

// waitingSince marks a worker's request as in flight since due (an offset
// from the phase's start); idle clears it.
func waitingSince(e *atomic.Int64, due time.Duration) { e.Store(int64(max(due, 0)) + 1) }
func idle(e *atomic.Int64)                            { e.Store(0) }

// scan reports the oldest request in flight at elapsed, as its age, 0 when
// none waits. With ages set, it also records there every age it knows of
// at least minAge, and counts them in evidence: a request that has waited
// that long is slow whatever happens next, while a younger one says
// nothing yet. A loop tells only its oldest request, so of a loop's
// requests only that one is recorded: the evidence stays a lower bound.
func (b *waitBoard) scan(elapsed time.Duration, ages *results.Histogram, minAge time.Duration) (oldest time.Duration, evidence int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	note := func(due time.Duration) {
		age := max(0, elapsed-due)
		oldest = max(oldest, age)
		if ages != nil && age >= minAge {
			ages.Record(age)
			evidence++
		}
	}
	for _, e := range b.workers {
		if v := e.Load(); v > 0 {
			note(time.Duration(v - 1))
		}
	}
	for _, e := range b.loops {
		if v := e.Load(); v != protocols.NoneWaiting {
			note(time.Duration(v))
		}
	}
	return oldest, evidence
}

// stallWatch finds the stalls of a phase from what the collector sees at
// each tick: when the answers since the last tick came, and how many
// requests wait and for how long. It needs no clock: elapsed is passed in.
type stallWatch struct {
	lastAnswer time.Duration // the last answer so far, or when nothing last waited
	in         bool          // a stall is going on
	cur        results.Stall
	stalls     []results.Stall
}

// observe takes one tick at elapsed: answers came since the last tick,
// waiting requests are in flight now, the oldest of them for oldest.
func (w *stallWatch) observe(elapsed time.Duration, answers answerSpan, waiting int64, oldest time.Duration) {
	if answers.n > 0 {
		if w.in {
			// The first answer ended the stall.
			w.cur.Duration = max(0, answers.first-w.cur.At)
			w.close()
		}
		w.lastAnswer = answers.last
	}
	if waiting == 0 {
		w.close()
		w.lastAnswer = elapsed // a quiet time starts no earlier than now
		return
	}
	if answers.n > 0 && elapsed-answers.last < results.MinStall {
		return // too soon to tell
	}
	// Requests wait and nothing was answered since the last answer, or
	// since the oldest waiting request was sent if that was later
	// (nothing waited before it).
	if !w.in {
		w.in = true
		w.cur = results.Stall{At: max(w.lastAnswer, elapsed-oldest)}
	}
	w.cur.Duration = elapsed - w.cur.At
	w.cur.Waiting = max(w.cur.Waiting, waiting)
}

// close ends the stall going on, keeping it if it lasted MinStall.
func (w *stallWatch) close() {
	if w.in && w.cur.Duration >= results.MinStall {
		w.stalls = append(w.stalls, w.cur)
	}
	w.in = false
	w.cur = results.Stall{}
}

// done ends the watch at the phase's end and returns its stalls.
func (w *stallWatch) done() []results.Stall {
	w.close()
	return w.stalls
}
