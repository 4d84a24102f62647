package tcp

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/loadgate/loadgate/protocols"
)

// rawExchange writes a request and reads the first bytes of its reply with
// one read system call, where net.Conn costs a write and two reads whenever
// the reply is not there yet when the first read tries: that read fails
// with EAGAIN, and the goroutine then waits and reads again. Here the write
// happens inside syscall.RawConn.Read, after the poller's readiness has
// been reset, so the reply's arrival cannot be missed, and the socket is
// read once it is readable. It is the same exchange as http1's lean
// client's, on the same system calls (protocols.RawRead and RawWrite).
//
// The reset also forgets a close that arrived while the connection sat
// idle, which the wait would then not see (protocols.RawIdleLimit): the
// caller uses the exchange on a new connection and on one busy moments ago.
type rawExchange struct {
	conn    syscall.RawConn
	step    func(fd uintptr) bool // rawStep, bound once: a closure per call would allocate
	wire    []byte                // the messages to write
	sent    int                   // bytes of wire written
	got     int                   // bytes of the reply read
	reading bool                  // wire is out; waiting for the reply
	err     error                 // the write's error
	rd      *frameReader
	limit   int // how far rd's buffer may grow
}

// attach readies the exchange for conn and reports whether conn is a plain
// socket it can drive. The exchange lives as long as its client, across
// connections, so that a new one costs no more than its syscall.RawConn.
func (x *rawExchange) attach(conn net.Conn, rd *frameReader, limit int) bool {
	x.conn = nil
	sc, ok := conn.(syscall.Conn)
	if !ok || !protocols.RawSupported {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	x.conn, x.rd, x.limit = rc, rd, limit
	if x.step == nil {
		x.step = x.rawStep
	}
	return true
}

// exchange writes wire and reads the first bytes of the reply into the
// frame reader, which must hold no unread bytes; or writes only as much of
// wire as one write took when the socket would not take it all, and the
// caller writes the rest and reads as usual. It returns the bytes written
// and read, and the write's error; an error of the wait or the read is
// left in the reader, which reports it in its turn.
func (x *rawExchange) exchange(wire []byte) (sent, got int, err error) {
	x.wire, x.sent, x.got, x.reading, x.err = wire, 0, 0, false, nil
	if werr := x.conn.Read(x.step); werr != nil && x.err == nil {
		// The wait is the reply's read, and is worded so, as net.Conn's
		// own read would be.
		var oe *net.OpError
		if errors.As(werr, &oe) && oe.Op == "raw-read" {
			oe.Op = "read"
		}
		x.rd.err = werr
	}
	x.wire = nil
	return x.sent, x.got, x.err
}

// rawStep runs with the socket's read lock held. Its first call writes the
// messages; it returns false to wait until the socket is readable, then
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
		if n < len(x.wire) {
			return true
		}
		x.reading = true
		return false
	}
	buf, err := x.rd.room(x.limit)
	if err != nil {
		x.rd.err = err
		return true
	}
	n, err := protocols.RawRead(fd, buf)
	switch {
	case err == syscall.EAGAIN:
		return false // woken early: wait again
	case err != nil:
		x.rd.err = os.NewSyscallError("read", err)
	case n == 0:
		x.rd.err = io.EOF
	default:
		x.rd.w += n
		x.got = n
	}
	return true
}
