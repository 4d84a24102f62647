//go:build linux

package evloop

import (
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// The requests in flight, in the order they were sent: a list threaded
// through the slots. Every request has the same timeout and is due no
// later than the next one sent (the open model sends its arrivals in
// order; the closed model's are due when sent), so the head is both the
// oldest request waiting and the first to time out: checking timeouts and
// keeping job.Oldest cost nothing per request in flight.

// noSlot ends the list.
const noSlot = -1

// link appends slot i, whose request has just been sent, to the list.
func (e *Engine) link(i int) {
	c := &e.slots[i]
	c.prev, c.next = e.tail, noSlot
	if e.tail == noSlot {
		e.head = int32(i)
		e.publishOldest()
	} else {
		e.slots[e.tail].next = int32(i)
	}
	e.tail = int32(i)
}

// unlink takes slot i, whose request is done, out of the list.
func (e *Engine) unlink(i int) {
	c := &e.slots[i]
	if c.next == noSlot {
		e.tail = c.prev
	} else {
		e.slots[c.next].prev = c.prev
	}
	if c.prev != noSlot {
		e.slots[c.prev].next = c.next
	} else {
		e.head = c.next
		e.publishOldest()
	}
	c.prev, c.next = noSlot, noSlot
}

// publishOldest stores the head's due time in job.Oldest, for the engine
// to read from its own goroutine.
func (e *Engine) publishOldest() {
	if e.job.Oldest == nil {
		return
	}
	if e.head == noSlot {
		e.job.Oldest.Store(protocols.NoneWaiting)
		return
	}
	e.job.Oldest.Store(int64(e.slots[e.head].origin))
}

// expire fails the requests past their timeout, once per scanEvery: the
// list's first ones.
func (e *Engine) expire(now time.Time) {
	if e.cfg.Timeout <= 0 || e.head == noSlot || now.Before(e.nextScan) {
		return
	}
	e.nextScan = now.Add(scanEvery)
	for at := e.tick(now); e.head != noSlot && at >= e.slots[e.head].deadline; {
		e.Fail(int(e.head), protocols.KindTimeout, e.cfg.ErrTimeout)
	}
}

// nextExpiry is when expire next has work: the first deadline, no sooner
// than the next scan; false when no request can time out.
func (e *Engine) nextExpiry() (time.Time, bool) {
	if e.cfg.Timeout <= 0 || e.head == noSlot {
		return time.Time{}, false
	}
	return later(e.time(e.slots[e.head].deadline), e.nextScan), true
}

// giveUp ends every request still in flight as unfinished, why: its
// latency is its age, from when it was due.
func (e *Engine) giveUp(why error) {
	for e.head != noSlot {
		i := int(e.head)
		c := &e.slots[i]
		c.Out.Kind, c.Out.Err = protocols.KindUnfinished, why
		e.Close(i)
		e.Finish(i)
	}
}
