package websocket

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// exchange saves a system call per message answered on a plain TCP
// connection, as the lean HTTP client's raw exchange does for a request
// (protocols/http1): right after a message has gone out its echo is
// seldom there yet, so the read that follows would fail with EAGAIN before
// waiting. Here the frames are written inside syscall.RawConn.Read, once
// the poller's readiness has been reset, and the socket is read once it is
// readable.
//
// The reset also forgets a close that came while the connection was idle;
// a server that only shuts down its side would then leave the read waiting
// for its timeout. So a connection idle for longer than exchangeIdle is
// written and read as usual.
type exchange struct {
	rc   syscall.RawConn // nil: the connection cannot be driven raw (wss)
	step func(fd uintptr) bool
	// wire is the frames to write, sent how many of them went out;
	// armed says they wait for the next Read.
	wire  []byte
	sent  int
	armed bool
	werr  error
	rbuf  []byte
	rn    int
	rerr  error
	src   net.Conn
	last  time.Time // when the connection's last iteration began; zero: new
}

// exchangeIdle bounds how long a connection may have been idle and still
// have its frames written inside the wait for their answer: far below any
// server's idle timeout, far above the gap between back-to-back messages.
const exchangeIdle = 100 * time.Millisecond

// attach readies the exchange for conn, a new connection.
func (x *exchange) attach(conn net.Conn) {
	x.rc, x.src, x.armed, x.last = nil, conn, false, time.Time{}
	sc, ok := conn.(syscall.Conn)
	if !ok || !protocols.RawSupported {
		return
	}
	if rc, err := sc.SyscallConn(); err == nil {
		x.rc = rc
	}
	if x.step == nil {
		x.step = x.exchangeStep // bound once: a method value per message would allocate
	}
}

// recent reports whether an iteration beginning at now finds its
// connection new or busy moments ago, and records now as its last.
func (x *exchange) recent(now time.Time) bool {
	ok := x.last.IsZero() || now.Sub(x.last) <= exchangeIdle
	x.last = now
	return ok
}

// arm makes wire go out with the next Read, and reports whether it will:
// false means the caller writes it as usual.
func (x *exchange) arm(wire []byte) bool {
	if x.rc == nil {
		return false
	}
	x.wire, x.sent, x.armed, x.werr = wire, 0, true, nil
	return true
}

// done ends an armed exchange: it reports how many bytes of the frames
// went out and the write's error, if any.
func (x *exchange) done() (int, error) {
	n, err := x.sent, x.werr
	x.wire, x.sent, x.armed, x.werr = nil, 0, false, nil
	return n, err
}

// Read writes the armed frames and reads the answer's first bytes in one
// RawConn.Read, or reads from the connection as usual when nothing is
// armed. Frames the socket took only part of are finished with Write.
func (x *exchange) Read(b []byte) (int, error) {
	if !x.armed {
		return x.src.Read(b)
	}
	x.armed = false
	x.rbuf, x.rn, x.rerr = b, 0, nil
	err := x.rc.Read(x.step)
	x.rbuf = nil
	switch {
	case x.werr != nil:
		return 0, x.werr
	case err != nil:
		return 0, err
	case x.sent < len(x.wire):
		n, err := x.src.Write(x.wire[x.sent:])
		x.sent += n
		if err != nil {
			x.werr = err
			return 0, err
		}
		return x.src.Read(b)
	}
	return x.rn, x.rerr
}

// exchangeStep runs with the socket's read lock held: its first call
// writes the frames and waits (returns false) once they are all out; the
// next ones read once, waiting again while the socket has nothing.
func (x *exchange) exchangeStep(fd uintptr) bool {
	if x.sent < len(x.wire) {
		n, err := protocols.RawWrite(fd, x.wire[x.sent:])
		switch {
		case err == syscall.EAGAIN:
			return true // a full send buffer: Read finishes with Write
		case err != nil:
			x.werr = os.NewSyscallError("write", err)
			return true
		}
		x.sent += n
		return x.sent < len(x.wire)
	}
	n, err := protocols.RawRead(fd, x.rbuf)
	switch {
	case err == syscall.EAGAIN:
		return false
	case err != nil:
		x.rerr = os.NewSyscallError("read", err)
	case n == 0:
		x.rerr = io.EOF
	default:
		x.rn = n
	}
	return true
}
