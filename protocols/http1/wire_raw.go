package http1

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// rawExchange saves a system call per request on plain TCP connections.
//
// net.Conn.Read tries the socket before it waits, and right after a request
// has gone out the answer is seldom there yet: that first read fails with
// EAGAIN, so every request would cost a write and two reads, where wrk pays
// a write and one read. Here the write happens inside syscall.RawConn.Read:
// the poller's readiness is reset before the request leaves, so the answer's
// arrival cannot be missed, and the socket is read once it is readable.
//
// The reset also forgets a close that arrived while the connection sat idle.
// A server that closes outright answers the request with a reset, which
// wakes the wait; one that only shuts down its side (a lingering close)
// would leave it waiting for the timeout. So the exchange is used on a
// connection that was busy moments ago, when no keep-alive timeout can have
// run out, and on a new one, which has never been idle; a connection idle
// for longer is read first as usual. On a new connection the write also
// ends the handshake's wait: when the handshake is not over yet, the write
// finds no room and the caller's Write waits for it.
type rawExchange struct {
	conn    syscall.RawConn
	step    func(fd uintptr) bool // rawStep, bound once: a closure per call would allocate
	wire    []byte                // the request
	sent    int                   // bytes of wire written
	reading bool                  // the request is out; waiting for the answer
	err     error                 // the write's error
	rd      *respReader
	// stamp asks for sentAt, the time the request's first bytes left: on a
	// new connection, the end of its handshake, which the wait for the
	// answer must not stretch.
	stamp  bool
	sentAt time.Time
	// rearm, when set, is asked whether a deadline that fired is early,
	// and the wait goes on (see lazyDeadline).
	rearm func() bool
	// peek is peekStep bound once; peeked is what it found (see idle).
	peek   func(fd uintptr)
	peeked idleRead
}

// rawIdleLimit is how long a kept-alive connection may have been idle and
// still use the exchange (protocols.RawIdleLimit).
const rawIdleLimit = protocols.RawIdleLimit

// rawSupported: the raw system calls are package protocols', which the
// TCP client shares.
const rawSupported = protocols.RawSupported

// attach readies the exchange for conn and reports whether conn is a plain
// socket it can drive; a TLS connection is not. The exchange lives as long
// as its client, across connections, so that a new one costs no more than
// its syscall.RawConn.
func (x *rawExchange) attach(conn net.Conn, rd *respReader) bool {
	x.conn = nil
	sc, ok := conn.(syscall.Conn)
	if !ok || !rawSupported {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	x.conn, x.rd = rc, rd
	if x.step == nil {
		x.step, x.peek = x.rawStep, x.peekStep
	}
	return true
}

// exchange writes wire and reads the first bytes of the answer into the
// response reader, or as much of wire as one write took when the socket
// would not take it all: the caller writes the rest and reads as usual.
// It returns the bytes written and the write's (or the wait's) error; a
// read error is left in the reader, which reports it in its turn.
func (x *rawExchange) exchange(wire []byte) (int, error) {
	x.wire, x.sent, x.reading, x.err = wire, 0, false, nil
	err := x.conn.Read(x.step)
	for err != nil && x.err == nil && early(err, x.rearm) {
		err = x.conn.Read(x.step) // the step goes on where it stopped
	}
	x.wire = nil
	if x.err != nil {
		return x.sent, x.err
	}
	return x.sent, err
}

// rawStep runs with the socket's read lock held. Its first call writes the
// request; it returns false to wait until the socket is readable, then
// reads once.
func (x *rawExchange) rawStep(fd uintptr) bool {
	if !x.reading {
		n, err := protocols.RawWrite(fd, x.wire)
		switch {
		case err == syscall.EAGAIN:
			return true // a full send buffer: the caller's Write waits for room
		case err != nil:
			x.err = os.NewSyscallError("write", err)
			return true
		}
		x.sent = n
		if x.stamp && n > 0 {
			x.sentAt = protocols.Now()
		}
		if n < len(x.wire) {
			return true
		}
		x.reading = true
		return false
	}
	buf := x.rd.free()
	n, err := protocols.RawRead(fd, buf)
	switch {
	case err == syscall.EAGAIN:
		return false // woken early: wait again
	case err != nil:
		x.rd.rerr = os.NewSyscallError("read", err)
	case n == 0:
		x.rd.rerr = io.EOF
	default:
		x.rd.filled(n)
	}
	return true
}

// idleRead is what a kept-alive connection holds while no request is out
// on it, as peekIdle finds it.
type idleRead uint8

const (
	// idleQuiet: nothing, or the server's close (or a failed socket),
	// which the request's write and read report in their turn.
	idleQuiet idleRead = iota
	// idleClosing: "HTTP/1.1 408", with which some servers announce the
	// close of a connection left idle, a normal end of a kept-alive
	// connection, as net/http's Transport also takes it.
	idleClosing
	// idleUnasked: bytes no request asked for, a second response to the
	// last request or one to none: a protocol failure (errUnasked).
	idleUnasked
)

// peekIdle looks, without waiting and without taking them, at the bytes
// the socket fd holds while no request is out on it. Both engines ask it
// before reusing a connection: the lean client before it writes, the event
// loop when an idle connection becomes readable.
func peekIdle(fd uintptr) idleRead {
	var b [len("HTTP/1.1 408")]byte
	n, err := protocols.RawPeek(fd, b[:])
	switch {
	case err != nil || n == 0:
		return idleQuiet
	case is408(b[:n]):
		return idleClosing
	}
	return idleUnasked
}

// is408 reports whether b is the start of a 408 response's status line.
func is408(b []byte) bool {
	return len(b) == len("HTTP/1.1 408") && string(b[:7]) == "HTTP/1." && string(b[8:]) == " 408"
}

// idle peeks at the connection before a request is written on it again
// (see peekIdle).
func (x *rawExchange) idle() idleRead {
	x.peeked = idleQuiet
	if x.conn.Control(x.peek) != nil {
		return idleQuiet
	}
	return x.peeked
}

func (x *rawExchange) peekStep(fd uintptr) { x.peeked = peekIdle(fd) }
