//go:build linux

package evloop

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// The open model on the loop: arrivals fall due on the job's schedule and
// each goes to a free slot, up to max_in_flight of them in flight. Slots
// are made as arrivals need them: max_in_flight may be a million, of which
// a fast server keeps a handful busy.

// maxBurst is how many arrivals the loop sends before it looks at its
// sockets again. A loop behind its schedule would otherwise send until it
// caught up, reading no answer meanwhile, and so find no connection free
// and open a new one for every arrival: each costs a connect and the
// server an accept, which puts the loop further behind.
const maxBurst = 64

// maxOpening bounds the connections whose handshake is not over. On
// loopback a handshake is over when connect returns, unless the server's
// accept queue is full: the kernel then drops the connection's first
// packet, to be sent again a second later, and more connections would
// only meet the same fate.
const maxOpening = 256

// sendDue hands the arrivals due by now to free slots, at most maxBurst of
// them: the loop then looks at its sockets, and sends the rest in its
// next round.
func (e *Engine) sendDue(now time.Time) {
	job := e.job
	for range maxBurst {
		if !e.nextArrival() || e.due.After(now) {
			return
		}
		i, ok := e.freeSlot()
		if !ok {
			return
		}
		if len(e.idle) > 0 {
			job.IdleHandoff()
		}
		// Lateness is the generator's from when a slot was free for the
		// arrival: a wait for max_in_flight is the server's doing, a wait
		// for a connection to open the loop's.
		job.Late(now.Sub(later(e.due, e.freeAt)))
		e.sent++
		job.Sent.Add(1)
		e.haveDue = false
		due := e.tick(e.due)
		e.start(i, job.Pick(), due, due, e.tick(now))
		now = protocols.Now()
	}
}

// nextArrival makes e.due the next arrival's due time; false when the
// schedule has no more.
func (e *Engine) nextArrival() bool {
	if e.haveDue {
		return true
	}
	if e.exhausted {
		return false
	}
	due, ok := e.job.Arrival(e.sent)
	if !ok {
		e.exhausted = true
		return false
	}
	next := e.job.Start.Add(due)
	e.gap, e.due, e.haveDue = next.Sub(e.due), next, true
	return true
}

// canSend reports whether the open model has a slot for an arrival: an
// idle one with a connection, or room for a connection.
func (e *Engine) canSend() bool {
	if n := len(e.idle); n > 0 && e.slots[e.idle[n-1]].FD >= 0 {
		return true
	}
	return e.opening < maxOpening && (e.maxSockets == 0 || e.sockets < e.maxSockets) &&
		(len(e.idle) > 0 || len(e.slots) < e.job.Slots)
}

// outOfSockets reports whether err says that this machine has no room for
// another connection (its file descriptors or its ports ran out), which
// the server has no part in; the open model then opens no more than are
// open now, and its arrivals wait for one of them, late by the
// generator's doing.
func (e *Engine) outOfSockets(err error) bool {
	if noRoom(err) {
		e.maxSockets = max(1, e.sockets)
		return true
	}
	return false
}

// noRoom reports whether err says that this machine has no room for
// another connection: its file descriptors or its ports ran out.
func noRoom(err error) bool {
	switch err {
	case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM, unix.EADDRNOTAVAIL:
		return true
	}
	return false
}

// freeSlot takes the idle slot used last, whose connection is the
// likeliest still open, or makes one. With none idle, it first looks for
// answers that free one: a kept-alive connection costs the loop a write,
// a new one a connect and the server an accept.
func (e *Engine) freeSlot() (int, bool) {
	if len(e.idle) == 0 && e.busy > 0 {
		e.look()
	}
	if !e.canSend() {
		return 0, false
	}
	if n := len(e.idle); n > 0 {
		i := e.idle[n-1]
		e.idle = e.idle[:n-1]
		return int(i), true
	}
	e.slots = append(e.slots, Slot{FD: -1, prev: noSlot, next: noSlot})
	e.proto.Grow(len(e.slots))
	return len(e.slots) - 1, true
}

// look handles what the sockets have to say, without waiting.
func (e *Engine) look() {
	e.flush()
	if n, err := e.poll(0); err == nil {
		e.handle(n)
	}
}

// stopSending ends the open model's sending at stop. The arrivals due by
// then and never sent were held by the loop itself, unless max_in_flight
// requests were outstanding: each is reported late by its wait, so that
// the generator's verdict counts them.
func (e *Engine) stopSending(stop time.Time) {
	e.stopped = true
	if e.job.Arrival == nil || e.busy >= e.job.Slots {
		return
	}
	for k := e.sent; ; k++ {
		due, ok := e.job.Arrival(k)
		at := e.job.Start.Add(due)
		if !ok || !at.Before(stop) {
			return
		}
		e.job.Late(stop.Sub(later(at, e.freeAt)))
	}
}
