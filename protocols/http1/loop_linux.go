//go:build linux

package http1

import (
	"context"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
)

// httpLoop is HTTP/1.1 on the event loop: the engine's slots each carry
// one request at a time on a kept-alive connection, plain or TLS, answered
// into a push parser.
type httpLoop struct {
	loopTarget
	eng   *evloop.Engine
	slots []httpSlot
	free  []*loopRead // response buffers and parsers no slot holds (see takeRead)
	// tls holds the slots' TLS connections, of an https target only.
	tls    []*loopTLS
	shakes shakes
}

// connState is where a slot's request stands.
type connState uint8

const (
	connIdle    connState = iota // no request: the slot is free
	connShaking                  // the new connection's TLS handshake runs off the loop
	connWriting                  // the request has not all left yet
	connReading                  // the request is out; its response is awaited
)

// httpSlot is what HTTP keeps of an engine's slot. A million of them are
// held at once: what only a response arriving needs, its buffer and
// parser, is taken when its first bytes come (see loopRead).
type httpSlot struct {
	wrote     int32     // bytes of the request written
	rd        *loopRead // nil until the response's first bytes
	state     connState
	reused    bool // the connection carried a complete exchange before
	retried   bool // the request is on its second connection
	inPending bool // bytes arrived while the request was still going out
	hup       bool // the server has closed its end (or the socket failed)
	unasked   bool // bytes came while no request was out: the next one fails
}

// loopRead is what a slot holds while its response arrives.
type loopRead struct {
	buf []byte
	n   int // bytes of buf not parsed yet
	p   pushParser
}

func newHTTPLoop(cfg evloop.Config, t loopTarget) protocols.Loop {
	l := &httpLoop{loopTarget: t}
	l.eng = evloop.New(cfg, l)
	return l
}

// Run drives the job's load from this goroutine (see evloop.Engine.Run).
// The handshakes still running were made to fail as the engine closed
// their connections: Run waits for their goroutines.
func (l *httpLoop) Run(ctx context.Context, job *protocols.LoopJob) error {
	err := l.eng.Run(ctx, job)
	l.shakes.running.Wait()
	return err
}

// Grow makes room for the engine's n slots.
func (l *httpLoop) Grow(n int) {
	l.slots = evloop.Grow(l.slots, n)
	if l.tlsConf != nil {
		l.tls = evloop.Grow(l.tls, n)
	}
}

// Issue writes slot i's request, on a new connection when it has none.
func (l *httpLoop) Issue(i int) {
	s := &l.slots[i]
	s.state, s.wrote = connWriting, 0
	if s.rd != nil {
		s.rd.reset(l.reqs[l.eng.Slot(i).Req].head, l.maxBody)
	}
	if s.unasked {
		s.unasked = false
		l.eng.Fail(i, protocols.KindProtocol, errUnasked)
		return
	}
	if l.eng.Slot(i).FD < 0 {
		if !l.eng.Dial(i) {
			return
		}
		s.reused = false
		if l.tlsConf != nil {
			l.handshake(i)
			return
		}
	}
	l.write(i)
}

// Event handles what epoll reported of slot i's socket.
func (l *httpLoop) Event(i int, events uint32) {
	s := &l.slots[i]
	// The server's close may come in the same edge as its last bytes:
	// then the read that takes them must not be the last.
	s.hup = s.hup || events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
	switch s.state {
	case connWriting:
		s.inPending = s.inPending || events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
		l.write(i)
	case connReading:
		l.read(i)
	case connIdle:
		if l.tlsConf != nil {
			l.idleTLS(i)
			return
		}
		// An idle kept-alive connection became readable: the server closed
		// it, or sent what no request asked for, which the slot's next
		// request is charged with (see peekIdle). Either way it is done.
		fd := l.eng.Slot(i).FD
		s.unasked = fd >= 0 && peekIdle(uintptr(fd)) == idleUnasked
		l.eng.Close(i)
	}
}

// Closed forgets slot i's connection.
func (l *httpLoop) Closed(i int) {
	s := &l.slots[i]
	s.reused, s.hup, s.inPending = false, false, false
	if s.rd != nil {
		s.rd.n = 0
	}
	if l.tlsConf != nil && l.tls[i] != nil {
		l.tls[i].abandon()
		l.tls[i] = nil
	}
}

// Ended frees slot i for its next request, and hands its buffer and
// parser back to the free list when nothing in the buffer is left to
// parse; one that grew for a large response stays with the slot.
func (l *httpLoop) Ended(i int) {
	s := &l.slots[i]
	s.state, s.retried = connIdle, false
	if s.rd != nil && s.rd.n == 0 && len(s.rd.buf) == http1BufSize {
		l.free = append(l.free, s.rd)
		s.rd = nil
	}
}
