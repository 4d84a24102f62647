package http1

import (
	"net"

	"github.com/loadgate/loadgate/protocols"
)

// rawExchange is the lean client's protocols.RawExchange on plain TCP
// connections: a request written and the first bytes of its answer read
// with one read system call, where net.Conn.Read would first fail with
// EAGAIN and read again after its wait.
type rawExchange struct {
	protocols.RawExchange
	rd *respReader
	// stamp asks for the time the request's first bytes left: on a new
	// connection, the end of its handshake, which the wait for the answer
	// must not stretch.
	stamp bool
	// rearm, when set, is asked whether a deadline that fired is early,
	// and the wait goes on (see lazyDeadline).
	rearm func() bool
	// peek is peekStep bound once; peeked is what it found (see idle).
	peek   func(fd uintptr)
	peeked idleRead
	free   func() []byte // rd.free, bound once
}

// rawIdleLimit is how long a kept-alive connection may have been idle and
// still use the exchange (protocols.RawIdleLimit).
const rawIdleLimit = protocols.RawIdleLimit

// rawSupported: the raw system calls are package protocols', which the
// TCP client shares.
const rawSupported = protocols.RawSupported

// attach readies the exchange for conn and reports whether conn is a plain
// socket it can drive; a TLS connection is not.
func (x *rawExchange) attach(conn net.Conn, rd *respReader) bool {
	if x.rd != rd {
		x.rd, x.free = rd, rd.free
	}
	if x.peek == nil {
		x.peek = x.peekStep
	}
	return x.Attach(conn, x.free)
}

// exchange writes wire and reads the first bytes of the answer into the
// response reader, or as much of wire as one write took when the socket
// would not take it all: the caller writes the rest and reads as usual.
// It returns the bytes written and the write's (or the wait's) error; a
// read error is left in the reader, which reports it in its turn.
func (x *rawExchange) exchange(wire []byte) (int, error) {
	x.Start(wire, x.stamp)
	err := x.Wait()
	for err != nil && x.WriteErr() == nil && early(err, x.rearm) {
		err = x.Wait() // the exchange goes on where it stopped
	}
	x.Done()
	switch n, rerr := x.Got(); {
	case n > 0:
		x.rd.filled(n)
	case rerr != nil:
		x.rd.rerr = rerr
	}
	if werr := x.WriteErr(); werr != nil {
		return x.Sent(), werr
	}
	return x.Sent(), err
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
	if x.Conn().Control(x.peek) != nil {
		return idleQuiet
	}
	return x.peeked
}

func (x *rawExchange) peekStep(fd uintptr) { x.peeked = peekIdle(fd) }
