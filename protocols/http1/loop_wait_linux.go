//go:build linux

package http1

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
func (l *httpLoop) link(i int) {
	c := &l.conns[i]
	c.prev, c.next = l.tail, noSlot
	if l.tail == noSlot {
		l.head = int32(i)
		l.publishOldest()
	} else {
		l.conns[l.tail].next = int32(i)
	}
	l.tail = int32(i)
}

// unlink takes slot i, whose request is done, out of the list.
func (l *httpLoop) unlink(i int) {
	c := &l.conns[i]
	if c.next == noSlot {
		l.tail = c.prev
	} else {
		l.conns[c.next].prev = c.prev
	}
	if c.prev != noSlot {
		l.conns[c.prev].next = c.next
	} else {
		l.head = c.next
		l.publishOldest()
	}
	c.prev, c.next = noSlot, noSlot
}

// publishOldest stores the head's due time in job.Oldest, for the engine
// to read from its own goroutine.
func (l *httpLoop) publishOldest() {
	if l.job.Oldest == nil {
		return
	}
	if l.head == noSlot {
		l.job.Oldest.Store(protocols.NoneWaiting)
		return
	}
	l.job.Oldest.Store(int64(l.conns[l.head].origin))
}

// expire fails the requests past their timeout, once per scanEvery: the
// list's first ones.
func (l *httpLoop) expire(now time.Time) {
	if l.timeout <= 0 || l.head == noSlot || now.Before(l.nextScan) {
		return
	}
	l.nextScan = now.Add(scanEvery)
	for at := l.tick(now); l.head != noSlot && at >= l.conns[l.head].deadline; {
		l.fail(int(l.head), protocols.KindTimeout, l.errTimeout)
	}
}

// nextExpiry is when expire next has work: the first deadline, no sooner
// than the next scan; false when no request can time out.
func (l *httpLoop) nextExpiry() (time.Time, bool) {
	if l.timeout <= 0 || l.head == noSlot {
		return time.Time{}, false
	}
	return later(l.time(l.conns[l.head].deadline), l.nextScan), true
}

// giveUp ends every request still in flight as unfinished, why: its
// latency is its age, from when it was due.
func (l *httpLoop) giveUp(why error) {
	for l.head != noSlot {
		i := int(l.head)
		c := &l.conns[i]
		c.out.Kind, c.out.Err = protocols.KindUnfinished, why
		l.closeConn(c)
		l.finish(i)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
