//go:build linux

package evloop

import (
	"math"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/sockets"
)

// Slot is one place of the engine for a request in flight, at most one,
// and the connection that carries it, kept for the next when both ends
// agree. A million of them are held at once, so a slot is kept small: its
// times are offsets on the loop's clock (see tick). What the protocol
// keeps of a slot it keeps in its own slots, by the same number.
type Slot struct {
	// FD is the connection's socket, -1 when the slot has none.
	FD     int32
	events uint32 // what FD is registered for in the epoll set; 0: not registered
	// Req is the request of the target's mix in flight (job.Pick's).
	Req int32
	// origin is where the latency runs from: when the request was sent
	// (closed model) or due (open model); due is noTick in the closed model.
	origin, due tick
	sentAt      tick // when its first byte left
	dialAt      tick // when this request opened the connection; noTick: it was open
	deadline    tick
	// Out is the request's outcome, which the protocol fills in.
	Out protocols.Outcome
	// prev and next link the slots with a request in flight (see link).
	prev, next int32
	tried      uint16 // addresses that refused this request's connection (a name has far fewer)
	// opening: the connection's handshake is not over (see maxOpening).
	opening bool
}

// tick is a time on the loop's clock: nanoseconds since the job's start,
// a third of a time.Time's bytes.
type tick int64

// noTick is a tick that was never taken.
const noTick tick = math.MinInt64

// tick is t on the loop's clock.
func (e *Engine) tick(t time.Time) tick { return tick(t.Sub(e.job.Start)) }

// time is k as a time.Time.
func (e *Engine) time(k tick) time.Time { return e.job.Start.Add(time.Duration(k)) }

// Slot is slot i, valid until the engine makes more slots (Protocol.Grow).
func (e *Engine) Slot(i int) *Slot { return &e.slots[i] }

// Opened reports whether slot i's request opened its connection, which
// is then new.
func (e *Engine) Opened(i int) bool { return e.slots[i].dialAt != noTick }

// start sends request req on slot i at now, timed from origin.
func (e *Engine) start(i, req int, origin, due, now tick) {
	c := &e.slots[i]
	c.Req, c.origin, c.due = int32(req), origin, due
	c.dialAt, c.tried = noTick, 0
	c.Out = protocols.Outcome{}
	if e.cfg.Timeout > 0 {
		c.deadline = now + tick(e.cfg.Timeout)
	}
	e.busy++
	e.job.InFlight.Add(1)
	e.link(i)
	e.proto.Issue(i)
}

// Dial opens a connection for slot i when it has none, and reports
// whether it has one now. When it cannot open one, the request has gone
// to the target's next address, issued anew, or failed (see
// ConnectFailed): the caller is done with it.
func (e *Engine) Dial(i int) bool {
	c := &e.slots[i]
	if c.FD >= 0 {
		return true
	}
	if c.dialAt == noTick {
		c.dialAt = e.tick(protocols.Now())
	}
	a := e.cfg.Addrs[e.cur]
	fd, op, err := sockets.Open(a, e.cfg.Sources.Socket(a), e.cfg.Nagle)
	if err != nil {
		e.ConnectFailed(i, op, err)
		return false
	}
	c.FD, c.opening = int32(fd), true
	e.opening++
	e.sockets++
	return true
}

// ConnectFailed handles a connection slot i could not open, at system
// call op. When the target's name has several addresses (localhost's ::1
// and 127.0.0.1), the next one gets the request, issued anew, and keeps
// the following ones, until every one has refused it, as a dialer tries
// them in turn.
func (e *Engine) ConnectFailed(i int, op string, err error) {
	c := &e.slots[i]
	e.Close(i)
	if e.outOfSockets(err) {
		e.Fail(i, protocols.KindOther, e.cfg.DialErrs.Of(op, err))
		return
	}
	if c.tried++; int(c.tried) < len(e.cfg.Addrs) {
		e.cur = (e.cur + 1) % len(e.cfg.Addrs)
		e.proto.Issue(i)
		return
	}
	e.Fail(i, protocols.KindConnect, e.cfg.DialErrs.Of(op, err))
}

// Stamp records that slot i's request's first bytes left now: its
// connection's handshake is over, which on a new connection is its
// connect time, and in the open model it left then, late by its lag.
func (e *Engine) Stamp(i int) {
	c := &e.slots[i]
	e.handshaken(c)
	if c.dialAt == noTick && c.due == noTick {
		return // a kept-alive closed-model request: nothing needs the time
	}
	c.sentAt = e.tick(protocols.Now())
	if c.dialAt != noTick {
		c.Out.Connect = time.Duration(c.sentAt - c.dialAt)
	}
}

// Connected records that slot i's new connection is ready for its
// request now, after an exchange that opens it (a TCP target's
// on_connect): that too is connect time.
func (e *Engine) Connected(i int) {
	c := &e.slots[i]
	if c.dialAt != noTick {
		c.Out.Connect = time.Duration(e.tick(protocols.Now()) - c.dialAt)
	}
}

// Watch registers slot i's socket in the epoll set for events want
// (unix.EPOLL*), or changes what it is registered for.
func (e *Engine) Watch(i int, want uint32) error {
	c := &e.slots[i]
	if c.events == want {
		return nil
	}
	op := unix.EPOLL_CTL_MOD
	if c.events == 0 {
		op = unix.EPOLL_CTL_ADD
	}
	ev := unix.EpollEvent{Events: want, Fd: int32(i)}
	_, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(e.ep), uintptr(op), uintptr(c.FD), uintptr(unsafe.Pointer(&ev)), 0, 0)
	if errno != 0 {
		return errno
	}
	c.events = want
	return nil
}

// Fail records slot i's request as failed with kind and err, and drops its
// connection: it is never reused after an error.
func (e *Engine) Fail(i int, kind protocols.ErrorKind, err error) {
	c := &e.slots[i]
	if c.dialAt != noTick && c.FD >= 0 && kind != protocols.KindConnect && sockets.SelfConnectedFD(int(c.FD), e.cfg.Addrs[e.cur]) {
		// Nothing listens on the target's port, which the kernel then
		// picked for this end of the connection too: it reached itself.
		kind, err = protocols.KindConnect, e.cfg.DialErrs.Of("connect", unix.ECONNREFUSED)
	}
	c.Out.Kind, c.Out.Err = kind, err
	e.Close(i)
	e.Finish(i)
}

// Finish records slot i's request, whose outcome is in, and frees the slot.
func (e *Engine) Finish(i int) {
	c := &e.slots[i]
	now := protocols.Now()
	e.unlink(i)
	if e.busy == e.job.Slots {
		e.freeAt = now
	}
	e.busy--
	e.job.InFlight.Add(-1)
	at := e.tick(now)
	var lag time.Duration
	if c.due != noTick {
		lag = time.Duration(max(0, c.sentAt-c.due))
		if c.Out.BytesSent == 0 {
			lag = time.Duration(max(0, at-c.due))
		}
	}
	e.job.Done(int(c.Req), time.Duration(at), time.Duration(at-c.origin), lag, &c.Out)
	e.proto.Ended(i)
	if e.job.Arrival == nil {
		e.rest(int32(i), now)
		return
	}
	e.idle = append(e.idle, int32(i))
}

// Close closes slot i's connection, which also takes it out of the epoll
// set, and has the protocol forget it.
func (e *Engine) Close(i int) {
	c := &e.slots[i]
	if c.FD >= 0 {
		closeFD(int(c.FD))
		e.sockets--
	}
	e.handshaken(c)
	c.FD, c.events = -1, 0
	e.proto.Closed(i)
}

// handshaken counts c's connection open, or never to be.
func (e *Engine) handshaken(c *Slot) {
	if c.opening {
		c.opening = false
		e.opening--
	}
}
