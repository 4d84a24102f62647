//go:build linux

package http1

import (
	"math"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/sockets"
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
// A million of them are held at once, so a slot is kept small: its times
// are offsets on the loop's clock (see tick), and what only a response
// arriving needs, its buffer and parser, is taken when its first bytes
// come (see loopRead).
type loopConn struct {
	fd     int32  // -1: no connection
	events uint32 // what fd is registered for in the epoll set; 0: not registered
	req    int32
	wrote  int32 // bytes of the request written
	// origin is where the latency runs from: when the request was sent
	// (closed model) or due (open model); due is noTick in the closed model.
	origin, due tick
	sentAt      tick // when its first byte left
	dialAt      tick // when this request opened the connection; noTick: it was open
	deadline    tick
	rd          *loopRead // nil until the response's first bytes
	out         protocols.Outcome
	// prev and next link the slots with a request in flight (see link).
	prev, next int32
	state      connState
	tried      uint16 // addresses that refused this request's connection (a name has far fewer)
	reused     bool   // the connection carried a complete exchange before
	retried    bool   // the request is on its second connection
	inPending  bool   // bytes arrived while the request was still going out
	hup        bool   // the server has closed its end (or the socket failed)
	unasked    bool   // bytes came while no request was out: the next one fails
	// opening: the connection's handshake is not over (see maxOpening).
	opening bool
}

// loopRead is what a slot holds while its response arrives.
type loopRead struct {
	buf []byte
	n   int // bytes of buf not parsed yet
	p   pushParser
}

// tick is a time on the loop's clock: nanoseconds since the job's start,
// a third of a time.Time's bytes.
type tick int64

// noTick is a tick that was never taken.
const noTick tick = math.MinInt64

// tick is t on the loop's clock.
func (l *httpLoop) tick(t time.Time) tick { return tick(t.Sub(l.job.Start)) }

// time is k as a time.Time.
func (l *httpLoop) time(k tick) time.Time { return l.job.Start.Add(time.Duration(k)) }

// start sends request req on slot i at now, timed from origin.
func (l *httpLoop) start(i, req int, origin, due, now tick) {
	c := &l.conns[i]
	c.req, c.origin, c.due, c.retried = int32(req), origin, due, false
	c.dialAt, c.tried = noTick, 0
	c.out = protocols.Outcome{}
	if l.timeout > 0 {
		c.deadline = now + tick(l.timeout)
	}
	l.busy++
	l.job.InFlight.Add(1)
	l.link(i)
	l.issue(i)
}

// issue opens a connection when the slot has none and writes the request.
func (l *httpLoop) issue(i int) {
	c := &l.conns[i]
	c.state, c.wrote = connWriting, 0
	if c.rd != nil {
		c.rd.reset(l.reqs[c.req].head, l.maxBody)
	}
	if c.unasked {
		c.unasked = false
		l.fail(i, protocols.KindProtocol, errUnasked)
		return
	}
	if c.fd < 0 {
		if c.dialAt == noTick {
			c.dialAt = l.tick(protocols.Now())
		}
		a := l.socks[l.cur]
		fd, op, err := sockets.Open(a, l.src.Socket(a), l.nagle)
		if err != nil {
			l.connectFailed(i, op, err)
			return
		}
		c.fd, c.reused, c.opening = int32(fd), false, true
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
		l.fail(i, protocols.KindOther, l.dialErrs.Of(op, err))
		return
	}
	if c.tried++; int(c.tried) < len(l.socks) {
		l.cur = (l.cur + 1) % len(l.socks)
		l.issue(i)
		return
	}
	l.fail(i, protocols.KindConnect, l.dialErrs.Of(op, err))
}

// write writes what is left of the request, and watches the connection
// for the answer once it has all left, or for room to write the rest. A
// new connection's first write also learns how its handshake went: on
// loopback it is over when connect returns; elsewhere the write finds no
// room until it is.
func (l *httpLoop) write(i int) {
	c := &l.conns[i]
	r := &l.reqs[c.req]
	n, err := writeRequest(uintptr(c.fd), r, int(c.wrote))
	switch {
	case err == unix.EAGAIN:
		n = 0
	case err != nil:
		l.writeFailed(i, err)
		return
	}
	// When the first byte left matters to a new connection's connect time
	// and to the open model's lag, not to a kept-alive closed-model request.
	if n > 0 && c.wrote == 0 && (c.dialAt != noTick || c.due != noTick) {
		c.sentAt = l.tick(protocols.Now())
		if c.dialAt != noTick {
			c.out.Connect = time.Duration(c.sentAt - c.dialAt)
		}
	}
	if n > 0 {
		l.opened(c)
	}
	c.wrote += int32(n)
	c.out.BytesSent += int64(n)
	// Edge-triggered: epoll reports a socket once per arrival of bytes,
	// not at every wait while it has some, which would cost each response
	// a second look at its socket. A read must then take everything
	// there is (see read).
	want := uint32(unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET)
	if int(c.wrote) < r.size() {
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
	if c.dialAt != noTick && c.wrote == 0 {
		if protocols.ClosedByPeer(err) {
			l.fail(i, protocols.KindReset, l.ioErrs.Of("write", err))
		} else {
			l.connectFailed(i, "connect", err)
		}
		return
	}
	if l.retry(i, err) {
		return
	}
	l.fail(i, protocols.KindReset, l.ioErrs.Of("write", err))
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
		return l.ioErrs.Of("epoll_ctl", e)
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
	if c.rd == nil {
		c.rd = l.takeRead()
		c.rd.reset(l.reqs[c.req].head, l.maxBody)
	}
	rd := c.rd
	for {
		if rd.n == len(rd.buf) {
			// The parser needs more of a header block than the buffer
			// holds; it fails one longer than http1MaxHeader itself.
			grown := make([]byte, 2*len(rd.buf))
			copy(grown, rd.buf)
			rd.buf = grown
		}
		room := len(rd.buf) - rd.n
		n, err := protocols.RawRead(uintptr(c.fd), rd.buf[rd.n:])
		switch {
		case err == unix.EAGAIN:
			return
		case err != nil:
			if !l.retry(i, err) {
				l.fail(i, classify(err), l.ioErrs.Of("read", err))
			}
			return
		case n == 0:
			l.eof(i)
			return
		}
		rd.n += n
		c.out.BytesReceived += int64(n)
		used, done, perr := rd.p.feed(rd.buf[:rd.n])
		copy(rd.buf, rd.buf[used:rd.n])
		rd.n -= used
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
	done, err := c.rd.p.eof()
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
	r := c.rd.p.result()
	c.out.Status = r.status
	c.out.Kind, c.out.Err = l.expect.Verdict(r.status, r.bodyLen)
	if c.rd.n > 0 {
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
	if c.dialAt != noTick && c.fd >= 0 && kind != protocols.KindConnect && sockets.SelfConnectedFD(int(c.fd), l.socks[l.cur]) {
		// Nothing listens on the target's port, which the kernel then
		// picked for this end of the connection too: it reached itself.
		kind, err = protocols.KindConnect, l.dialErrs.Of("connect", unix.ECONNREFUSED)
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
	at := l.tick(now)
	var lag time.Duration
	if c.due != noTick {
		lag = time.Duration(max(0, c.sentAt-c.due))
		if c.wrote == 0 {
			lag = time.Duration(max(0, at-c.due))
		}
	}
	l.job.Done(int(c.req), time.Duration(at), time.Duration(at-c.origin), lag, &c.out)
	l.dropRead(c)
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
	c.fd, c.events, c.reused, c.hup, c.inPending = -1, 0, false, false, false
	if c.rd != nil {
		c.rd.n = 0
	}
}

// opened counts c's connection open, or never to be.
func (l *httpLoop) opened(c *loopConn) {
	if c.opening {
		c.opening = false
		l.opening--
	}
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

// dropRead hands c's buffer and parser back to the free list when nothing
// in the buffer is left to parse; one that grew for a large response
// stays with c.
func (l *httpLoop) dropRead(c *loopConn) {
	if c.rd != nil && c.rd.n == 0 && len(c.rd.buf) == http1BufSize {
		l.free = append(l.free, c.rd)
		c.rd = nil
	}
}
