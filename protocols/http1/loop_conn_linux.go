//go:build linux

package http1

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// connState is where a slot's request stands.
type connState uint8

const (
	connIdle    connState = iota // no request: the slot is free
	connWriting                  // the request has not all left yet
	connReading                  // the request is out; its response is awaited
)

// loopConn is one slot of the loop: a request in flight, at most one, and
// the connection that carries it, kept for the next when both ends agree.
type loopConn struct {
	fd     int // -1: no connection
	state  connState
	events uint32 // what fd is registered for in the epoll set; 0: not registered
	req    int
	// origin is where the latency runs from: when the request was sent
	// (closed model) or due (open model); due is zero in the closed model.
	origin, due time.Time
	sentAt      time.Time // when its first byte left
	dialAt      time.Time // when this request opened the connection; zero: it was open
	deadline    time.Time
	wrote       int
	reused      bool // the connection carried a complete exchange before
	retried     bool // the request is on its second connection
	tried       int  // addresses that refused this request's connection
	inPending   bool // bytes arrived while the request was still going out
	hup         bool // the server has closed its end (or the socket failed)
	unasked     bool // bytes came while no request was out: the next one fails
	p           pushParser
	buf         []byte
	n           int // bytes of buf not parsed yet
	out         protocols.Outcome
	// opening: the connection's handshake is not over (see maxOpening).
	opening bool
	// prev and next link the slots with a request in flight (see link).
	prev, next int32
}

// start sends request req on slot i at now, timed from origin.
func (l *httpLoop) start(i, req int, origin, due, now time.Time) {
	c := &l.conns[i]
	c.req, c.origin, c.due, c.retried = req, origin, due, false
	c.dialAt, c.tried = time.Time{}, 0
	c.out = protocols.Outcome{}
	if l.timeout > 0 {
		c.deadline = now.Add(l.timeout)
	}
	l.busy++
	l.job.InFlight.Add(1)
	l.link(i)
	l.issue(i)
}

// issue opens a connection when the slot has none and writes the request.
func (l *httpLoop) issue(i int) {
	c := &l.conns[i]
	c.state, c.wrote, c.n = connWriting, 0, 0
	c.p.reset(l.reqs[c.req].head, l.maxBody)
	if c.unasked {
		c.unasked = false
		l.fail(i, protocols.KindProtocol, errUnasked)
		return
	}
	if c.fd < 0 {
		if c.dialAt.IsZero() {
			c.dialAt = protocols.Now()
		}
		a := l.socks[l.cur]
		fd, op, err := openSocket(a, l.src.socket(a), l.nagle)
		if err != nil {
			l.connectFailed(i, op, err)
			return
		}
		c.fd, c.reused, c.opening = fd, false, true
		l.opening++
		l.sockets++
	}
	l.write(i)
}

// connectFailed handles a connection slot i could not open. When the
// target's name has several addresses (localhost's ::1 and 127.0.0.1),
// the next one gets the request, and keeps the following ones, until
// every one has refused it, as a dialer tries them in turn.
func (l *httpLoop) connectFailed(i int, op string, err error) {
	c := &l.conns[i]
	l.closeConn(c)
	if l.outOfSockets(err) {
		l.fail(i, protocols.KindOther, l.dialErrs.of(op, err))
		return
	}
	if c.tried++; c.tried < len(l.socks) {
		l.cur = (l.cur + 1) % len(l.socks)
		l.issue(i)
		return
	}
	l.fail(i, protocols.KindConnect, l.dialErrs.of(op, err))
}

// write writes what is left of the request, and watches the connection
// for the answer once it has all left, or for room to write the rest. A
// new connection's first write also learns how its handshake went: on
// loopback it is over when connect returns; elsewhere the write finds no
// room until it is.
func (l *httpLoop) write(i int) {
	c := &l.conns[i]
	r := &l.reqs[c.req]
	n, err := writeRequest(uintptr(c.fd), r, c.wrote)
	switch {
	case err == unix.EAGAIN:
		n = 0
	case err != nil:
		l.writeFailed(i, err)
		return
	}
	// When the first byte left matters to a new connection's connect time
	// and to the open model's lag, not to a kept-alive closed-model request.
	if n > 0 && c.wrote == 0 && (!c.dialAt.IsZero() || !c.due.IsZero()) {
		c.sentAt = protocols.Now()
		if !c.dialAt.IsZero() {
			c.out.Connect = c.sentAt.Sub(c.dialAt)
		}
	}
	if n > 0 {
		l.opened(c)
	}
	c.wrote += n
	c.out.BytesSent += int64(n)
	// Edge-triggered: epoll reports a socket once per arrival of bytes,
	// not at every wait while it has some, which would cost each response
	// a second look at its socket. A read must then take everything
	// there is (see read).
	want := uint32(unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET)
	if c.wrote < r.size() {
		want |= unix.EPOLLOUT
	} else {
		c.state = connReading
	}
	if err := l.watch(c, int32(i), want); err != nil {
		l.fail(i, protocols.KindOther, err)
		return
	}
	if c.state == connReading && c.inPending {
		// The answer began while the request was still going out: its
		// edge has been reported already.
		l.read(i)
	}
}

// writeFailed fails a request whose write failed: on a new connection
// before any byte left, a failed handshake, as the lean client reports it.
func (l *httpLoop) writeFailed(i int, err error) {
	c := &l.conns[i]
	if !c.dialAt.IsZero() && c.wrote == 0 {
		if protocols.ClosedByPeer(err) {
			l.fail(i, protocols.KindReset, l.ioErrs.of("write", err))
		} else {
			l.connectFailed(i, "connect", err)
		}
		return
	}
	if l.retry(i, err) {
		return
	}
	l.fail(i, protocols.KindReset, l.ioErrs.of("write", err))
}

// watch registers c's socket in the epoll set for events want, or changes
// what it is registered for.
func (l *httpLoop) watch(c *loopConn, id int32, want uint32) error {
	if c.events == want {
		return nil
	}
	op := unix.EPOLL_CTL_MOD
	if c.events == 0 {
		op = unix.EPOLL_CTL_ADD
	}
	ev := unix.EpollEvent{Events: want, Fd: id}
	_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(l.ep), uintptr(op), uintptr(c.fd), uintptr(unsafe.Pointer(&ev)), 0, 0)
	if e != 0 {
		return l.ioErrs.of("epoll_ctl", e)
	}
	c.events = want
	return nil
}

// onEvent handles what epoll reported of slot i's socket.
func (l *httpLoop) onEvent(i int, events uint32) {
	c := &l.conns[i]
	// The server's close may come in the same edge as its last bytes:
	// then the read that takes them must not be the last.
	c.hup = c.hup || events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
	switch c.state {
	case connWriting:
		c.inPending = c.inPending || events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
		l.write(i)
	case connReading:
		l.read(i)
	default:
		// An idle kept-alive connection became readable: the server closed
		// it, or sent what no request asked for, which the slot's next
		// request is charged with (see peekIdle). Either way it is done.
		c.unasked = c.fd >= 0 && peekIdle(uintptr(c.fd)) == idleUnasked
		l.closeConn(c)
	}
}

// read reads what the socket holds and parses it, until the response is
// complete or a read leaves room in the buffer: a TCP socket that fills
// less than it was offered has been emptied, and its next bytes will be
// reported anew.
func (l *httpLoop) read(i int) {
	c := &l.conns[i]
	c.inPending = false
	if c.buf == nil {
		c.buf = l.takeBuf()
	}
	for {
		if c.n == len(c.buf) {
			// The parser needs more of a header block than the buffer
			// holds; it fails one longer than http1MaxHeader itself.
			grown := make([]byte, 2*len(c.buf))
			copy(grown, c.buf)
			c.buf = grown
		}
		room := len(c.buf) - c.n
		n, err := rawRead(uintptr(c.fd), c.buf[c.n:])
		switch {
		case err == unix.EAGAIN:
			return
		case err != nil:
			if !l.retry(i, err) {
				l.fail(i, classify(err), l.ioErrs.of("read", err))
			}
			return
		case n == 0:
			l.eof(i)
			return
		}
		c.n += n
		c.out.BytesReceived += int64(n)
		used, done, perr := c.p.feed(c.buf[:c.n])
		copy(c.buf, c.buf[used:c.n])
		c.n -= used
		switch {
		case perr != nil:
			l.fail(i, responseKind(perr), perr)
			return
		case done:
			l.complete(i)
			return
		case n < room && !c.hup:
			return
		}
	}
}

// eof handles the server's close of a connection awaiting a response.
func (l *httpLoop) eof(i int) {
	c := &l.conns[i]
	done, err := c.p.eof()
	switch {
	case done:
		l.complete(i)
	case l.retry(i, err):
	default:
		l.fail(i, protocols.KindReset, protocols.ReplyError(err))
	}
}

// retry sends the request again on a new connection when the kept-alive
// one it went out on turns out closed before any answer: a server may
// close an idle connection at any time, which is no failure of the server.
func (l *httpLoop) retry(i int, err error) bool {
	c := &l.conns[i]
	if !c.reused || c.retried || c.out.BytesReceived > 0 || !protocols.ClosedByPeer(err) {
		return false
	}
	l.closeConn(c)
	c.retried = true
	c.out.BytesSent = 0
	l.issue(i)
	return true
}

// complete judges and records a response that is all in.
func (l *httpLoop) complete(i int) {
	c := &l.conns[i]
	r := c.p.result()
	c.out.Status = r.status
	c.out.Kind, c.out.Err = l.expect.Verdict(r.status, r.bodyLen)
	if c.n > 0 {
		// More bytes came than the response holds: a second answer to one
		// request, which is charged with it.
		l.fail(i, protocols.KindProtocol, errUnasked)
		return
	}
	if r.close || l.reqs[c.req].close {
		l.closeConn(c)
	} else {
		c.reused = true
	}
	l.finish(i)
}

// fail records slot i's request as failed with kind and err, and drops its
// connection: it is never reused after an error.
func (l *httpLoop) fail(i int, kind protocols.ErrorKind, err error) {
	c := &l.conns[i]
	if !c.dialAt.IsZero() && c.fd >= 0 && kind != protocols.KindConnect && selfConnectedFD(c.fd, l.socks[l.cur]) {
		// Nothing listens on the target's port, which the kernel then
		// picked for this end of the connection too: it reached itself.
		kind, err = protocols.KindConnect, l.dialErrs.of("connect", unix.ECONNREFUSED)
	}
	c.out.Kind, c.out.Err = kind, err
	l.closeConn(c)
	l.finish(i)
}

// finish records slot i's request and frees the slot.
func (l *httpLoop) finish(i int) {
	c := &l.conns[i]
	now := protocols.Now()
	c.state = connIdle
	l.unlink(i)
	if l.busy == l.job.Slots {
		l.freeAt = now
	}
	l.busy--
	l.job.InFlight.Add(-1)
	var lag time.Duration
	if !c.due.IsZero() {
		lag = max(0, c.sentAt.Sub(c.due))
		if c.wrote == 0 {
			lag = max(0, now.Sub(c.due))
		}
	}
	l.job.Done(c.req, now.Sub(l.job.Start), now.Sub(c.origin), lag, &c.out)
	l.dropBuf(c)
	if l.job.Arrival == nil {
		l.rest(int32(i), now)
		return
	}
	l.idle = append(l.idle, int32(i))
}

// closeConn closes slot c's connection, which also takes it out of the
// epoll set.
func (l *httpLoop) closeConn(c *loopConn) {
	if c.fd >= 0 {
		_, _, _ = unix.RawSyscall(unix.SYS_CLOSE, uintptr(c.fd), 0, 0)
		l.sockets--
	}
	l.opened(c)
	c.fd, c.events, c.reused, c.n, c.hup, c.inPending = -1, 0, false, 0, false, false
}

// opened counts c's connection open, or never to be.
func (l *httpLoop) opened(c *loopConn) {
	if c.opening {
		c.opening = false
		l.opening--
	}
}

// takeBuf is a buffer of the default size from the loop's free list. A
// slot holds one only from its response's first bytes to its end, so ten
// thousand connections waiting for their answers hold none: the loop
// needs as many buffers as responses arrive in pieces at once.
func (l *httpLoop) takeBuf() []byte {
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free = l.free[:n-1]
		return b
	}
	return make([]byte, http1BufSize)
}

// dropBuf hands c's buffer back to the free list when nothing in it is
// left to parse; one that grew for a large response stays with c.
func (l *httpLoop) dropBuf(c *loopConn) {
	if c.buf != nil && c.n == 0 && len(c.buf) == http1BufSize {
		l.free = append(l.free, c.buf)
		c.buf = nil
	}
}
