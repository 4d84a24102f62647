package http1

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"syscall"

	"github.com/loadgate/loadgate/protocols"
)

// tlsSocket is the TCP connection under a kept-alive HTTPS one: crypto/tls
// writes its records to it and reads them from it. It gives TLS what
// rawExchange gives plain TCP (see protocols.RawExchange): a request's
// records are held back by Write and sent by the Read that waits for the
// answer, so the read that would fail with EAGAIN right after the write is
// never made. Every read and write is a raw system call, and a deadline
// that fires early (see lazyDeadline) is rearmed here, below crypto/tls,
// which would take a failed write as the end of its connection.
type tlsSocket struct {
	net.Conn
	x protocols.RawExchange
	// held is the records of the request written while hold is set, sent
	// by the next Read; sent is how much of it has gone out.
	held []byte
	sent int
	hold bool
	// rbuf is the buffer of the Read under way; readBuf returns it, bound
	// once.
	rbuf    []byte
	readBuf func() []byte
	wbuf    []byte // the write step's bytes
	wn      int
	werr    error
	wstep   func(fd uintptr) bool // writeStep, bound once
	rearm   func() bool
}

// wrap makes conn, a plain TCP connection, the socket under a new TLS
// connection, or returns conn itself when it cannot be driven raw. The
// socket lives as long as its client, across connections; rearm is set
// once the handshake is over, as the handshake has its own deadline.
func (s *tlsSocket) wrap(conn net.Conn) net.Conn {
	if s.readBuf == nil {
		s.readBuf, s.wstep = func() []byte { return s.rbuf }, s.writeStep
	}
	if !s.x.Attach(conn, s.readBuf) {
		return conn
	}
	s.Conn, s.rearm = conn, nil
	s.held, s.sent, s.hold = s.held[:0], 0, false
	return s
}

// handshake runs the TLS handshake on conn, on the client's tlsSocket
// when it can drive conn (tlsOK) and no proxy tunnel is in between; it
// closes conn when the handshake fails.
func (c *http1Client) handshake(ctx context.Context, conn net.Conn) (net.Conn, error) {
	sock := conn
	if c.proxy == nil {
		sock = c.tls.wrap(conn)
	}
	tc := tls.Client(sock, c.tlsConf)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	c.tlsOK = sock != conn
	return tc, nil
}

// holdNext makes the records of the next request wait for the read of its
// answer. It is for a connection that was busy moments ago, as the raw
// exchange is: the wait forgets a close that came while it was idle.
func (s *tlsSocket) holdNext() { s.hold, s.held, s.sent = true, s.held[:0], 0 }

// unsent reports whether records held back were not all sent: the answer
// was read from what crypto/tls already had, before the request left.
func (s *tlsSocket) unsent() bool {
	left := s.hold || s.sent < len(s.held)
	s.hold, s.held, s.sent = false, s.held[:0], 0
	return left
}

// Write holds b back while a request is being held (b is crypto/tls's
// buffer, which it reuses: the bytes are copied), or writes it.
func (s *tlsSocket) Write(b []byte) (int, error) {
	if s.hold {
		s.held = append(s.held, b...)
		return len(b), nil
	}
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.write(b)
}

// flush writes what was held back and not sent yet.
func (s *tlsSocket) flush() error {
	if s.sent == len(s.held) {
		return nil
	}
	n, err := s.write(s.held[s.sent:])
	s.sent += n
	return err
}

// write writes all of b, waiting for room as net.Conn.Write does.
func (s *tlsSocket) write(b []byte) (int, error) {
	s.wbuf, s.wn, s.werr = b, 0, nil
	rc := s.x.Conn()
	err := rc.Write(s.wstep)
	for err != nil && early(err, s.rearm) {
		err = rc.Write(s.wstep)
	}
	n := s.wn
	s.wbuf = nil
	if err == nil {
		err = s.werr
	}
	return n, err
}

func (s *tlsSocket) writeStep(fd uintptr) bool {
	for s.wn < len(s.wbuf) {
		n, err := protocols.RawWrite(fd, s.wbuf[s.wn:])
		switch {
		case err == syscall.EAGAIN:
			return false
		case err != nil:
			s.werr = os.NewSyscallError("write", err)
			return true
		}
		s.wn += n
	}
	return true
}

// Read sends the records held back, if any, then reads once, when the
// socket is readable.
func (s *tlsSocket) Read(b []byte) (int, error) {
	if s.hold {
		s.hold = false
		return s.exchange(b)
	}
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.read(b, nil)
}

// exchange writes the held records and reads the answer's first bytes
// into b, in one RawConn.Read; a write that could not go out whole at once
// is finished by write, and the answer read as usual.
func (s *tlsSocket) exchange(b []byte) (int, error) {
	n, err := s.read(b, s.held[s.sent:])
	if err != nil || s.sent == len(s.held) {
		return n, err
	}
	if err := s.flush(); err != nil {
		return 0, err
	}
	return s.read(b, nil)
}

// read writes wire, when there is any, and reads once into b.
func (s *tlsSocket) read(b, wire []byte) (int, error) {
	s.rbuf = b
	s.x.Start(wire, false)
	err := s.x.Wait()
	for err != nil && s.x.WriteErr() == nil && early(err, s.rearm) {
		err = s.x.Wait() // the exchange goes on where it stopped
	}
	s.x.Done()
	s.rbuf = nil
	s.sent += s.x.Sent()
	switch werr := s.x.WriteErr(); {
	case werr != nil:
		return 0, werr
	case err != nil:
		return 0, err
	}
	return s.x.Got()
}
