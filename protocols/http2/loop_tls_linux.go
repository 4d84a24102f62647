//go:build linux

package http2

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// h2 over TLS on the event loop: crypto/tls drives its records over a
// socket that never blocks once the handshake is over. The handshake,
// which crypto/tls can only make with reads that wait, runs on a goroutine
// of its own, with the socket's waits made by poll(2); the loop leaves the
// connection alone meanwhile, and takes it back when the goroutine hands
// the outcome over (evloop.Engine.Wake, h2Loop.Woken).

// loopSocket is the net.Conn under a loop connection's tls.Conn: its
// socket, with its raw bytes counted.
type loopSocket struct {
	fd int
	// wait says reads and writes wait for the socket, until deadline (the
	// handshake's goroutine); else they never block: a read with nothing
	// to read returns errWouldBlock, which crypto/tls keeps no trace of,
	// and a write keeps what the socket had no room for in pending.
	wait     bool
	deadline time.Time
	pending  []byte
	err      error // the socket's failure on a write, for the loop to see
	// drained: the last read took less than it was offered, so the socket
	// is empty until epoll reports it again (the loop then clears it),
	// which spares crypto/tls's next read a system call that finds nothing.
	drained  bool
	sent     int64
	received int64
}

// wouldBlock is a read that found nothing to read: temporary, so that
// crypto/tls reads the record again later.
type wouldBlock struct{}

func (wouldBlock) Error() string   { return "the socket has nothing to read" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

var errWouldBlock error = wouldBlock{}

func (s *loopSocket) Read(p []byte) (int, error) {
	if s.drained && !s.wait {
		return 0, errWouldBlock
	}
	for {
		n, err := protocols.RawRead(uintptr(s.fd), p)
		switch {
		case err == unix.EAGAIN && s.wait:
			if err := s.await(unix.POLLIN); err != nil {
				return 0, err
			}
			continue
		case err == unix.EAGAIN:
			return 0, errWouldBlock
		case err != nil:
			return 0, os.NewSyscallError("read", err)
		case n == 0:
			return 0, io.EOF
		}
		s.received += int64(n)
		s.drained = n < len(p)
		return n, nil
	}
}

func (s *loopSocket) Write(p []byte) (int, error) {
	if s.wait {
		for off := 0; off < len(p); {
			n, err := protocols.RawWrite(uintptr(s.fd), p[off:])
			switch {
			case err == unix.EAGAIN:
				if err := s.await(unix.POLLOUT); err != nil {
					return off, err
				}
				continue
			case err != nil:
				return off, os.NewSyscallError("write", err)
			}
			off += n
			s.sent += int64(n)
		}
		return len(p), nil
	}
	// The loop's writes: what does not fit now leaves on the socket's next
	// room (flush). A failure is the loop's to handle, not crypto/tls's,
	// which would keep it for good.
	// What is handed over counts as sent, as a plain connection's buffer.
	all := len(p)
	s.sent += int64(all)
	if len(s.pending) == 0 && s.err == nil {
		n, err := protocols.RawWrite(uintptr(s.fd), p)
		switch {
		case err == unix.EAGAIN:
			n = 0
		case err != nil:
			s.err = err
			return all, nil
		}
		p = p[n:]
	}
	s.pending = append(s.pending, p...)
	return all, nil
}

// flush writes what a write left over; false when the socket failed.
func (s *loopSocket) flush() bool {
	if len(s.pending) > 0 && s.err == nil {
		n, err := protocols.RawWrite(uintptr(s.fd), s.pending)
		switch {
		case err == unix.EAGAIN:
		case err != nil:
			s.err = err
		default:
			s.pending = s.pending[:copy(s.pending, s.pending[n:])]
		}
	}
	return s.err == nil
}

// await waits until the socket is ready for events or the deadline passes.
func (s *loopSocket) await(events int16) error {
	left := time.Until(s.deadline)
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	fds := []unix.PollFd{{Fd: int32(s.fd), Events: events}}
	_, err := unix.Poll(fds, int(min(left, time.Hour).Milliseconds())+1)
	if err != nil && err != unix.EINTR {
		return os.NewSyscallError("poll", err)
	}
	return nil
}

func (s *loopSocket) Close() error                     { return nil } // the loop closes the socket
func (s *loopSocket) LocalAddr() net.Addr              { return nil }
func (s *loopSocket) RemoteAddr() net.Addr             { return nil }
func (s *loopSocket) SetDeadline(time.Time) error      { return nil }
func (s *loopSocket) SetReadDeadline(time.Time) error  { return nil }
func (s *loopSocket) SetWriteDeadline(time.Time) error { return nil }

// handshaken is a handshake's outcome, handed from its goroutine.
type handshaken struct {
	conn int32
	gen  uint32
	err  error
}

// startTLS has a goroutine make c's TLS handshake, within the target's
// timeout or until the phase's end.
func (l *h2Loop) startTLS(c *h2Conn) {
	c.sock = &loopSocket{fd: c.fd, wait: true, deadline: l.handshakeBy()}
	c.tls = tls.Client(c.sock, l.tlsConf)
	c.state = connHandshaking
	num, gen, tc := c.num, c.gen, c.tls
	l.handshakes.Add(1)
	go func() {
		defer l.handshakes.Done()
		err := tc.HandshakeContext(context.Background())
		if err == nil {
			if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
				err = l.errNoH2
				if p == "http/1.1" {
					err = l.errH1
				}
			}
		}
		l.handMu.Lock()
		l.handed = append(l.handed, handshaken{num, gen, err})
		l.handMu.Unlock()
		l.eng.Wake()
	}()
}

// handshakeBy is when a handshake begun now gives up.
func (l *h2Loop) handshakeBy() time.Time {
	by := l.end
	if l.timeout > 0 {
		by = protocols.Now().Add(l.timeout)
	}
	return by
}

// Woken takes the handshakes that ended back to the loop.
func (l *h2Loop) Woken() {
	l.handMu.Lock()
	done := append(l.taken[:0], l.handed...)
	l.handed = l.handed[:0]
	l.handMu.Unlock()
	l.taken = done
	for _, h := range done {
		c := l.conns[h.conn]
		if c.gen != h.gen || c.state != connHandshaking {
			continue
		}
		c.sock.wait, c.sock.drained = false, false
		if errors.Is(h.err, unix.ECONNREFUSED) {
			l.openFailed(c, unix.ECONNREFUSED) // to the target's next address, if it has one
			continue
		}
		if h.err != nil {
			kind := protocols.KindConnect
			switch {
			case errors.Is(h.err, l.errNoH2), errors.Is(h.err, l.errH1):
				kind = protocols.KindProtocol
			case errors.Is(h.err, os.ErrDeadlineExceeded):
				kind = protocols.KindTimeout
			}
			l.failAll(c, kind, h.err)
			continue
		}
		c.state = connOpening
		c.sentShared += c.sock.sent
		c.received += c.sock.received
		c.sock.sent, c.sock.received = 0, 0
		l.queuePreface(c)
		l.write(c)
		if c.fd >= 0 {
			l.read(c) // what came with the handshake's end has no edge of its own
		}
	}
}

// writeTLS writes what c has buffered as TLS records; the socket takes
// what it has room for, the rest on its next room.
func (l *h2Loop) writeTLS(c *h2Conn) {
	before := c.sock.sent
	if _, err := c.tls.Write(c.out); err != nil {
		l.lost(c, "write", err)
		return
	}
	// The records' own bytes belong to no one stream.
	c.sentShared += c.sock.sent - before - int64(len(c.out))
	c.out = c.out[:0]
	if c.sock.err != nil {
		l.lost(c, "write", c.sock.err)
	}
}

// readTLS reads and handles the records c's socket holds, until it has
// none: crypto/tls hands over one record's bytes per read.
func (l *h2Loop) readTLS(c *h2Conn) {
	gen := c.gen
	for c.gen == gen {
		k := copy(l.rbuf, c.carry)
		n, err := c.tls.Read(l.rbuf[k:])
		c.received += c.sock.received
		c.sock.received = 0
		if n > 0 {
			rest, ok := l.frames(c, l.rbuf[:k+n])
			if !ok {
				return
			}
			c.carry = append(c.carry[:0], rest...)
		}
		switch {
		case err == nil:
		case err == errWouldBlock:
			return
		case err == io.EOF:
			l.lost(c, "read", nil)
			return
		default:
			l.lost(c, "read", err)
			return
		}
	}
}

// endTLS ends the handshakes still going at the phase's end: their
// sockets shut, their reads fail at once.
func (l *h2Loop) endTLS() {
	for _, c := range l.conns {
		if c.state == connHandshaking && c.fd >= 0 {
			_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
		}
	}
	l.handshakes.Wait()
}
