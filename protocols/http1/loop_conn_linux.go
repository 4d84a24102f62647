//go:build linux

package http1

import (
	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// write writes what is left of slot i's request, and watches the
// connection for the answer once it has all left, or for room to write
// the rest. A new connection's first write also learns how its handshake
// went: on loopback it is over when connect returns; elsewhere the write
// finds no room until it is.
func (l *httpLoop) write(i int) {
	s := &l.slots[i]
	n, left, err := l.send(i)
	if err != nil {
		l.writeFailed(i, err)
		return
	}
	if n > 0 && s.wrote == 0 {
		l.eng.Stamp(i)
	}
	s.wrote += int32(n)
	// Edge-triggered: epoll reports a socket once per arrival of bytes,
	// not at every wait while it has some, which would cost each response
	// a second look at its socket. A read must then take everything
	// there is (see read).
	want := uint32(unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET)
	if left {
		want |= unix.EPOLLOUT
	} else {
		s.state = connReading
	}
	if err := l.eng.Watch(i, want); err != nil {
		l.eng.Fail(i, protocols.KindOther, l.ioErrs.Of("epoll_ctl", err))
		return
	}
	if s.state == connReading && s.inPending {
		// The answer began while the request was still going out: its
		// edge has been reported already.
		l.read(i)
	}
}

// send writes what is left of slot i's request: n bytes now; left says
// that some are still to go.
func (l *httpLoop) send(i int) (n int, left bool, err error) {
	if l.tlsConf != nil {
		return l.sendTLS(i)
	}
	s, c := &l.slots[i], l.eng.Slot(i)
	r := &l.reqs[c.Req]
	n, err = writeRequest(uintptr(c.FD), r, int(s.wrote))
	switch {
	case err == unix.EAGAIN:
		n = 0
	case err != nil:
		return 0, false, err
	}
	c.Out.BytesSent += int64(n)
	return n, int(s.wrote)+n < r.size(), nil
}

// writeFailed fails a request whose write failed: on a new connection
// before any byte left, a failed handshake, as the lean client reports it.
func (l *httpLoop) writeFailed(i int, err error) {
	if l.eng.Opened(i) && l.slots[i].wrote == 0 {
		if protocols.ClosedByPeer(err) {
			l.eng.Fail(i, protocols.KindReset, l.ioErrs.Of("write", err))
		} else {
			l.eng.ConnectFailed(i, "connect", err)
		}
		return
	}
	if l.retry(i, err) {
		return
	}
	l.eng.Fail(i, protocols.KindReset, l.ioErrs.Of("write", err))
}

// read reads what the socket holds and parses it, until the response is
// complete or a read leaves room in the buffer: a TCP socket that fills
// less than it was offered has been emptied, and its next bytes will be
// reported anew.
func (l *httpLoop) read(i int) {
	s, c := &l.slots[i], l.eng.Slot(i)
	s.inPending = false
	if s.rd == nil {
		s.rd = l.takeRead()
		s.rd.reset(l.reqs[c.Req].head, l.maxBody)
	}
	rd := s.rd
	for {
		if rd.n == len(rd.buf) {
			// The parser needs more of a header block than the buffer
			// holds; it fails one longer than http1MaxHeader itself.
			grown := make([]byte, 2*len(rd.buf))
			copy(grown, rd.buf)
			rd.buf = grown
		}
		room := len(rd.buf) - rd.n
		n, err := l.recv(i, rd.buf[rd.n:])
		switch {
		case err == unix.EAGAIN:
			return
		case err != nil:
			if !l.retry(i, err) {
				l.eng.Fail(i, classify(err), l.ioErrs.Of("read", err))
			}
			return
		case n == 0:
			l.eof(i)
			return
		}
		rd.n += n
		c.Out.BytesReceived += int64(n)
		used, done, perr := rd.p.feed(rd.buf[:rd.n])
		copy(rd.buf, rd.buf[used:rd.n])
		rd.n -= used
		switch {
		case perr != nil:
			l.eng.Fail(i, responseKind(perr), perr)
			return
		case done:
			l.complete(i)
			return
		case n < room && !s.hup && l.tlsConf == nil:
			return
		}
	}
}

// recv reads what slot i's connection has for b. A plain socket that
// fills less of b than it could has been emptied; crypto/tls's Read gives
// a record at a time, so a TLS connection is read until the socket has
// nothing more (EAGAIN).
func (l *httpLoop) recv(i int, b []byte) (int, error) {
	if l.tlsConf != nil {
		return l.recvTLS(i, b)
	}
	return protocols.RawRead(uintptr(l.eng.Slot(i).FD), b)
}

// eof handles the server's close of a connection awaiting a response.
func (l *httpLoop) eof(i int) {
	done, err := l.slots[i].rd.p.eof()
	switch {
	case done:
		l.complete(i)
	case l.retry(i, err):
	default:
		l.eng.Fail(i, protocols.KindReset, protocols.ReplyError(err))
	}
}

// retry sends the request again on a new connection when the kept-alive
// one it went out on turns out closed before any answer: a server may
// close an idle connection at any time, which is no failure of the server.
func (l *httpLoop) retry(i int, err error) bool {
	s, c := &l.slots[i], l.eng.Slot(i)
	if !s.reused || s.retried || c.Out.BytesReceived > 0 || !protocols.ClosedByPeer(err) {
		return false
	}
	l.eng.Close(i)
	s.retried = true
	c.Out.BytesSent = 0
	l.Issue(i)
	return true
}

// complete judges and records a response that is all in.
func (l *httpLoop) complete(i int) {
	s, c := &l.slots[i], l.eng.Slot(i)
	r := s.rd.p.result()
	c.Out.Status = r.status
	c.Out.Kind, c.Out.Err = l.expect.Verdict(r.status, r.bodyLen)
	if s.rd.n > 0 {
		// More bytes came than the response holds: a second answer to one
		// request, which is charged with it.
		l.eng.Fail(i, protocols.KindProtocol, errUnasked)
		return
	}
	if r.close || l.reqs[c.Req].close {
		l.eng.Close(i)
	} else {
		s.reused = true
	}
	l.eng.Finish(i)
}

// reset prepares r for the response to a request; head says it was HEAD.
func (r *loopRead) reset(head bool, maxBody int64) {
	r.n = 0
	r.p.reset(head, maxBody)
}

// takeRead is a buffer of the default size and a parser from the loop's
// free list. A slot holds one only from its response's first bytes to its
// end, so a million connections waiting for their answers hold none: the
// loop needs as many as responses arrive in pieces at once.
func (l *httpLoop) takeRead() *loopRead {
	if n := len(l.free); n > 0 {
		r := l.free[n-1]
		l.free = l.free[:n-1]
		return r
	}
	return &loopRead{buf: make([]byte, http1BufSize)}
}
