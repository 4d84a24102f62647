//go:build linux

package http1

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
func (l *httpLoop) sendDue(now time.Time) {
	job := l.job
	for range maxBurst {
		if !l.nextArrival() || l.due.After(now) {
			return
		}
		i, ok := l.freeSlot()
		if !ok {
			return
		}
		if len(l.idle) > 0 {
			job.IdleHandoff()
		}
		// Lateness is the generator's from when a slot was free for the
		// arrival: a wait for max_in_flight is the server's doing, a wait
		// for a connection to open the loop's.
		job.Late(now.Sub(later(l.due, l.freeAt)))
		l.sent++
		job.Sent.Add(1)
		l.haveDue = false
		due := l.tick(l.due)
		l.start(i, job.Pick(), due, due, l.tick(now))
		now = protocols.Now()
	}
}

// nextArrival makes l.due the next arrival's due time; false when the
// schedule has no more.
func (l *httpLoop) nextArrival() bool {
	if l.haveDue {
		return true
	}
	if l.exhausted {
		return false
	}
	due, ok := l.job.Arrival(l.sent)
	if !ok {
		l.exhausted = true
		return false
	}
	next := l.job.Start.Add(due)
	l.gap, l.due, l.haveDue = next.Sub(l.due), next, true
	return true
}

// canSend reports whether the open model has a slot for an arrival: an
// idle one with a connection, or room for a connection.
func (l *httpLoop) canSend() bool {
	if n := len(l.idle); n > 0 && l.conns[l.idle[n-1]].fd >= 0 {
		return true
	}
	return l.opening < maxOpening && (l.maxSockets == 0 || l.sockets < l.maxSockets) &&
		(len(l.idle) > 0 || len(l.conns) < l.job.Slots)
}

// outOfSockets reports whether err says that this machine has no room for
// another connection (its file descriptors or its ports ran out), which
// the server has no part in; the open model then opens no more than are
// open now, and its arrivals wait for one of them, late by the
// generator's doing.
func (l *httpLoop) outOfSockets(err error) bool {
	switch err {
	case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM, unix.EADDRNOTAVAIL:
		l.maxSockets = max(1, l.sockets)
		return true
	}
	return false
}

// freeSlot takes the idle slot used last, whose connection is the
// likeliest still open, or makes one. With none idle, it first looks for
// answers that free one: a kept-alive connection costs the loop a write,
// a new one a connect and the server an accept.
func (l *httpLoop) freeSlot() (int, bool) {
	if len(l.idle) == 0 && l.busy > 0 {
		l.look()
	}
	if !l.canSend() {
		return 0, false
	}
	if n := len(l.idle); n > 0 {
		i := l.idle[n-1]
		l.idle = l.idle[:n-1]
		return int(i), true
	}
	l.conns = append(l.conns, loopConn{fd: -1, prev: noSlot, next: noSlot})
	return len(l.conns) - 1, true
}

// look handles what the sockets have to say, without waiting.
func (l *httpLoop) look() {
	if n, err := l.poll(0); err == nil {
		l.handle(n)
	}
}

// stopSending ends the open model's sending at stop. The arrivals due by
// then and never sent were held by the loop itself, unless max_in_flight
// requests were outstanding: each is reported late by its wait, so that
// the generator's verdict counts them.
func (l *httpLoop) stopSending(stop time.Time) {
	l.stopped = true
	if l.job.Arrival == nil || l.busy >= l.job.Slots {
		return
	}
	for k := l.sent; ; k++ {
		due, ok := l.job.Arrival(k)
		at := l.job.Start.Add(due)
		if !ok || !at.Before(stop) {
			return
		}
		l.job.Late(stop.Sub(later(at, l.freeAt)))
	}
}
