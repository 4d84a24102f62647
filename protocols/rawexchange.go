package protocols

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// RawExchange writes a message and reads the first bytes of its answer
// with one read system call, where net.Conn costs a write and two reads
// whenever the answer is not there yet when its first read tries: that
// read fails with EAGAIN, and the goroutine then waits and reads again.
// Here the write happens inside syscall.RawConn.Read, after the poller's
// readiness has been reset, so the answer's arrival cannot be missed, and
// the socket is read once it is readable. wrk pays a write and a read per
// request; so does an exchange.
//
// The reset also forgets a close that arrived while the connection sat
// idle: a server that closes outright answers the next message with a
// reset, which wakes the wait, but one that only shuts down its side (a
// lingering close) would leave it waiting for its timeout. Callers use the
// exchange on a new connection, which has never been idle, and on one
// busy less than RawIdleLimit ago; other connections are written and read
// as usual. On a new connection the write also ends the handshake's wait:
// while the handshake is not over, the write finds no room, and the caller
// writes as usual.
//
// The HTTP/1.1 lean client, its HTTPS socket, the TCP client and the
// WebSocket client share it.
type RawExchange struct {
	conn syscall.RawConn
	step func(fd uintptr) bool // rawStep, bound once: a method value per exchange would allocate
	wire []byte                // the message
	// buf gives where the answer's first bytes go, asked only once the
	// socket is readable, so that a client waiting for its answer need
	// hold no buffer.
	buf  func() []byte
	sent int   // bytes of wire written
	got  int   // bytes read into buf
	werr error // the write's error
	rerr error // the read's error; io.EOF: the peer closed
	// stamp asks for sentAt, when the message's first bytes left: on a
	// new connection, the end of its handshake, which the wait for the
	// answer must not stretch.
	stamp  bool
	sentAt time.Time
}

// Attach makes conn the exchange's connection, whose answers' first bytes
// go where buf says, and reports whether it can be driven raw: a plain
// socket, where the system has the raw calls (RawSupported). buf is a
// method value bound once by the caller: one made per exchange would
// allocate. An exchange lives as long as its client, across connections,
// so that a new connection costs no more than its syscall.RawConn.
func (x *RawExchange) Attach(conn net.Conn, buf func() []byte) bool {
	x.conn, x.buf = nil, buf
	sc, ok := conn.(syscall.Conn)
	if !ok || !RawSupported {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	x.conn = rc
	if x.step == nil {
		x.step = x.rawStep
	}
	return true
}

// Conn is the attached connection's syscall.RawConn, nil when there is
// none.
func (x *RawExchange) Conn() syscall.RawConn { return x.conn }

// Detach forgets the connection, which is closed.
func (x *RawExchange) Detach() { x.conn = nil }

// Start readies an exchange of wire; with an empty wire, Wait only reads.
// With stamp, SentAt tells when wire's first bytes left.
func (x *RawExchange) Start(wire []byte, stamp bool) {
	x.wire, x.stamp = wire, stamp
	x.sent, x.got, x.werr, x.rerr, x.sentAt = 0, 0, nil, nil, time.Time{}
}

// Wait runs the exchange until it has read once, the write failed, or the
// socket took only part of wire (Sent tells), which the caller then writes
// as usual before it reads as usual. Its error is the wait's: a deadline,
// a closed connection. Called again after such an error, the exchange goes
// on where it stopped.
func (x *RawExchange) Wait() error { return x.conn.Read(x.step) }

// Sent is how many bytes of wire went out.
func (x *RawExchange) Sent() int { return x.sent }

// SentAt is when wire's first bytes went out, when Start asked for it.
func (x *RawExchange) SentAt() time.Time { return x.sentAt }

// WriteErr is the write's error.
func (x *RawExchange) WriteErr() error { return x.werr }

// Got is how many bytes were read into buf and the read's error (io.EOF:
// the peer closed).
func (x *RawExchange) Got() (int, error) { return x.got, x.rerr }

// Done lets go of the exchange's message.
func (x *RawExchange) Done() { x.wire = nil }

// rawStep runs with the socket's read lock held. Its calls write wire and
// then return false to wait until the socket is readable; the next reads
// once, and waits again while the socket has nothing.
func (x *RawExchange) rawStep(fd uintptr) bool {
	if x.sent < len(x.wire) {
		n, err := RawWrite(fd, x.wire[x.sent:])
		switch {
		case err == syscall.EAGAIN:
			return true // a full send buffer: the caller writes the rest as usual
		case err != nil:
			x.werr = os.NewSyscallError("write", err)
			return true
		}
		if x.stamp && x.sent == 0 && n > 0 {
			x.sentAt = Now()
		}
		x.sent += n
		return x.sent < len(x.wire)
	}
	buf := x.buf()
	n, err := RawRead(fd, buf)
	switch {
	case err == syscall.EAGAIN:
		return false // woken early: wait again
	case err != nil:
		x.rerr = os.NewSyscallError("read", err)
	case n == 0 && len(buf) > 0:
		x.rerr = io.EOF
	default:
		x.got = n
	}
	return true
}
