//go:build linux

package http1

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/sockets"
)

// HTTPS on the loop. crypto/tls only shakes hands blocking, so a new
// connection's handshake runs on a goroutine of its own, over a duplicate
// of the slot's socket that the runtime's poller drives; the loop leaves
// the socket alone meanwhile and takes the connection back when the
// goroutine says it is done (evloop.Waker). From then on crypto/tls runs
// on the loop: its records are read from the socket as epoll reports
// bytes, and written to it as requests go out, with no goroutine between.

// loopTLS is a slot's TLS connection.
type loopTLS struct {
	conn *tls.Conn
	wire tlsWire
	// shaking is the duplicate socket of the handshake, which the loop
	// may only make fail (see abandon): the handshake's goroutine owns it.
	shaking *os.File
}

// tlsWire is the socket under a loop's TLS connection: during the
// handshake the goroutine's duplicate, then the slot's socket itself,
// read without waiting (a Read with nothing to read fails with
// errWouldBlock, which crypto/tls lets go by) and written in one system
// call per request: the records of a request are gathered in out, and the
// loop writes them (see send).
type tlsWire struct {
	hs  net.Conn // the handshake's socket until it is over; then nil
	fd  int
	out []byte // records not written yet, from off
	off int
}

// wouldBlock is the error of a read that found nothing to read. crypto/tls
// keeps the error of a failed read for good, unless it is a temporary
// net.Error: then the same Read can be made again once bytes come.
type wouldBlock struct{}

func (wouldBlock) Error() string   { return "read would block" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true }

var errWouldBlock net.Error = wouldBlock{}

func (w *tlsWire) Read(b []byte) (int, error) {
	if w.hs != nil {
		return w.hs.Read(b)
	}
	n, err := protocols.RawRead(uintptr(w.fd), b)
	switch {
	case err == unix.EAGAIN:
		return 0, errWouldBlock
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write gathers b (crypto/tls's buffer, which it reuses: the bytes are
// copied) for the loop's next write.
func (w *tlsWire) Write(b []byte) (int, error) {
	if w.hs != nil {
		return w.hs.Write(b)
	}
	w.out = append(w.out, b...)
	return len(b), nil
}

// send writes what is gathered; left says that some is still to go.
func (w *tlsWire) send() (n int, left bool, err error) {
	n, err = protocols.RawWrite(uintptr(w.fd), w.out[w.off:])
	switch {
	case err == unix.EAGAIN:
		n, err = 0, nil
	case err != nil:
		return 0, false, err
	}
	if w.off += n; w.off < len(w.out) {
		return n, true, nil
	}
	w.out, w.off = w.out[:0], 0
	return n, false, nil
}

func (w *tlsWire) Close() error                     { return nil }
func (w *tlsWire) LocalAddr() net.Addr              { return nil }
func (w *tlsWire) RemoteAddr() net.Addr             { return nil }
func (w *tlsWire) SetDeadline(time.Time) error      { return nil }
func (w *tlsWire) SetReadDeadline(time.Time) error  { return nil }
func (w *tlsWire) SetWriteDeadline(time.Time) error { return nil }

// abandon makes the handshake under way fail at once, as the loop has
// closed the slot's socket: the duplicate would keep the connection open.
func (t *loopTLS) abandon() {
	if t.shaking != nil {
		_ = t.shaking.SetDeadline(time.Unix(1, 0))
	}
}

// shakeDone is a handshake that ended, for the loop to take in.
type shakeDone struct {
	slot int
	t    *loopTLS
	err  error
}

// shakes are the handshakes running off the loop.
type shakes struct {
	mu          sync.Mutex
	done, spare []shakeDone
	running     sync.WaitGroup
}

func (s *shakes) put(d shakeDone) {
	s.mu.Lock()
	s.done = append(s.done, d)
	s.mu.Unlock()
}

// take returns the handshakes that ended, valid until the next take.
func (s *shakes) take() []shakeDone {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.done
	s.done, s.spare = s.spare[:0], d
	return d
}

// handshake starts the TLS handshake of slot i's new connection.
func (l *httpLoop) handshake(i int) {
	fd := l.eng.Slot(i).FD
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		l.eng.Fail(i, protocols.KindOther, l.ioErrs.Of("dup", err))
		return
	}
	// The duplicate shares the socket's O_NONBLOCK, so the runtime's
	// poller takes it.
	f := os.NewFile(uintptr(dup), string(l.ioErrs.Addr))
	t := &loopTLS{shaking: f}
	t.wire.hs = socketConn{f}
	t.conn = tls.Client(&t.wire, l.tlsConf)
	l.tls[i] = t
	l.slots[i].state = connShaking
	l.shakes.running.Add(1)
	go l.shake(i, t)
}

// shake runs t's handshake on its own goroutine.
func (l *httpLoop) shake(i int, t *loopTLS) {
	defer l.shakes.running.Done()
	err := t.conn.Handshake()
	t.wire.hs = nil
	_ = t.shaking.Close()
	l.shakes.put(shakeDone{slot: i, t: t, err: err})
	l.eng.Wake()
}

// Woken takes in the handshakes that ended: a slot whose connection was
// closed meanwhile (a timeout, the phase's end) has forgotten its own.
func (l *httpLoop) Woken() {
	for _, d := range l.shakes.take() {
		if l.tls[d.slot] != d.t {
			continue
		}
		if d.err != nil {
			l.handshakeFailed(d.slot, d.err)
			continue
		}
		d.t.wire.fd = int(l.eng.Slot(d.slot).FD)
		l.slots[d.slot].state = connWriting
		l.write(d.slot)
	}
}

// handshakeFailed fails slot i's request, whose connection's handshake
// failed with err: a connection the server reset goes to the target's
// next address, as a refused one does.
func (l *httpLoop) handshakeFailed(i int, err error) {
	fd, addr := int(l.eng.Slot(i).FD), l.eng.FirstAddr()
	switch _, isErrno := sockets.ErrnoOf(err); {
	case l.eng.SelfConnected(fd, addr):
		l.eng.ConnectFailed(i, "connect", unix.ECONNREFUSED)
	case isErrno:
		l.eng.ConnectFailed(i, "TLS handshake", err)
	default:
		l.eng.Fail(i, protocols.KindConnect, fmt.Errorf("TLS handshake with %s: %w", l.ioErrs.Addr, err))
	}
}

// sendTLS encrypts slot i's request when none of it has left, and writes
// what of its records is left.
func (l *httpLoop) sendTLS(i int) (n int, left bool, err error) {
	s, c, t := &l.slots[i], l.eng.Slot(i), l.tls[i]
	if s.wrote == 0 && len(t.wire.out) == 0 {
		r := &l.reqs[c.Req]
		_, err = t.conn.Write(r.wire)
		if err == nil && r.body != nil {
			_, err = t.conn.Write(r.body)
		}
		if err != nil {
			return 0, false, err
		}
		c.Out.BytesSent += int64(r.size())
	}
	return t.wire.send()
}

// recvTLS reads what crypto/tls makes of the records that came into b:
// (0, unix.EAGAIN) once the socket has nothing more, (0, nil) at the
// server's close.
func (l *httpLoop) recvTLS(i int, b []byte) (int, error) {
	n, err := l.tls[i].conn.Read(b)
	switch {
	case n > 0:
		return n, nil
	case err == errWouldBlock:
		return 0, unix.EAGAIN
	case err == io.EOF:
		return 0, nil
	}
	return 0, err
}

// idleTLS handles bytes on slot i's idle TLS connection: a message of
// TLS's own (a session ticket) keeps it; an answer no request asked for
// is charged to the slot's next request; the server's close ends it.
func (l *httpLoop) idleTLS(i int) {
	var scratch [512]byte
	for {
		n, err := l.tls[i].conn.Read(scratch[:])
		switch {
		case n > 0:
			l.slots[i].unasked = true
		case err == errWouldBlock && !l.slots[i].unasked:
			return
		default:
			l.eng.Close(i)
			return
		}
	}
}
