//go:build linux

package tcp

import (
	"context"
	"io"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
	"github.com/loadgate/loadgate/scenarios"
)

// tcpLoop is framed TCP on the event loop: each of the engine's slots
// walks a connection through the target's steps, on_connect once per new
// connection and then one iteration per request, its replies split from
// the bytes each read brings, as the worker client does from its reads.
type tcpLoop struct {
	loopTarget
	eng   *evloop.Engine
	slots []tcpSlot
	free  []*frameReader // read buffers no slot holds (see takeReader)
	// fail is the error of the failure being recorded: the engine records
	// a request before it fails the next one, so one serves them all.
	fail protocols.StepError
	// templated: some payload changes from one iteration to the next, so
	// each slot renders it in its own environment.
	templated bool
}

// connState is where a slot's request stands.
type connState uint8

const (
	connIdle    connState = iota // no request: the slot is free
	connWriting                  // a run of sends has not all left yet
	connReading                  // an expect awaits its reply
)

// tcpSlot is what TCP keeps of an engine's slot.
type tcpSlot struct {
	wire []byte // the run of sends being written: a step's own bytes, or wbuf
	wbuf []byte // the run rendered, for templated steps
	rd   *frameReader
	env  *protocols.RenderEnv // templated targets only
	// wrote counts the bytes of wire written; at is the next step of the
	// steps being run, last the last send of wire, which a failed write
	// is charged to.
	wrote    int32
	at, last int16
	state    connState
	// connecting: the steps being run are on_connect's.
	connecting bool
	hup        bool // the server has closed its end (or the socket failed)
	inPending  bool // bytes arrived while a run was still going out
}

func newTCPLoop(cfg evloop.Config, t loopTarget) protocols.Loop {
	l := &tcpLoop{loopTarget: t}
	for _, ops := range [][]tcpOp{t.onConnect, t.iteration} {
		for k := range ops {
			l.templated = l.templated || ops[k].expect == nil && ops[k].static == nil
		}
	}
	l.eng = evloop.New(cfg, l)
	return l
}

// Run drives the job's load from this goroutine (see evloop.Engine.Run).
func (l *tcpLoop) Run(ctx context.Context, job *protocols.LoopJob) error {
	return l.eng.Run(ctx, job)
}

// Grow makes room for the engine's n slots.
func (l *tcpLoop) Grow(n int) {
	l.slots = evloop.Grow(l.slots, n)
}

// ops are the steps slot s is running.
func (l *tcpLoop) ops(s *tcpSlot) []tcpOp {
	if s.connecting {
		return l.onConnect
	}
	return l.iteration
}

// Issue starts slot i's iteration, after on_connect on a new connection.
func (l *tcpLoop) Issue(i int) {
	s := &l.slots[i]
	if l.templated && !l.eng.Opened(i) {
		// Not again for a request the next address takes over.
		if s.env == nil {
			env := protocols.NewRenderEnv(i)
			s.env = &env
		}
		s.env.Next()
	}
	s.connecting, s.at = false, 0
	if l.eng.Slot(i).FD < 0 {
		if !l.eng.Dial(i) {
			return
		}
		s.connecting = len(l.onConnect) > 0
	}
	l.advance(i)
}

// advance runs slot i's steps from s.at: it writes the next run of sends,
// or waits for the next expect's reply, or ends the request.
func (l *tcpLoop) advance(i int) {
	s := &l.slots[i]
	ops := l.ops(s)
	if int(s.at) == len(ops) {
		if s.connecting {
			s.connecting, s.at = false, 0
			l.eng.Connected(i)
			l.advance(i)
			return
		}
		l.complete(i)
		return
	}
	op := &ops[s.at]
	if op.expect != nil {
		s.state = connReading
		if !l.watch(i, false) {
			return
		}
		if s.inPending || s.rd != nil && !s.rd.empty() {
			l.read(i)
		}
		return
	}
	s.wire = op.run
	if s.wire == nil {
		s.wbuf = s.wbuf[:0]
		for k := int(s.at); k < op.runEnd; k++ {
			s.wbuf = l.encode(s.wbuf, &ops[k], s.env)
		}
		s.wire = s.wbuf
	}
	s.state, s.wrote = connWriting, 0
	s.last, s.at = int16(op.runEnd-1), int16(op.runEnd)
	l.write(i)
}

// write writes what is left of the run, and goes on with the steps once it
// has all left; or watches for room to write the rest. A new connection's
// first write also learns how its handshake went.
func (l *tcpLoop) write(i int) {
	s, c := &l.slots[i], l.eng.Slot(i)
	n, err := protocols.RawWrite(uintptr(c.FD), s.wire[s.wrote:])
	switch {
	case err == unix.EAGAIN:
		n = 0
	case err != nil:
		l.writeFailed(i, err)
		return
	}
	if n > 0 && c.Out.BytesSent == 0 {
		l.eng.Stamp(i)
	}
	s.wrote += int32(n)
	c.Out.BytesSent += int64(n)
	if int(s.wrote) < len(s.wire) {
		l.watch(i, true)
		return
	}
	s.wire = nil
	l.advance(i)
}

// watch registers slot i's socket for its replies, edge-triggered (a read
// takes all there is), and with more for room to write; false when it
// could not, and the request has failed.
func (l *tcpLoop) watch(i int, more bool) bool {
	want := uint32(unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET)
	if more {
		want |= unix.EPOLLOUT
	}
	if err := l.eng.Watch(i, want); err != nil {
		l.eng.Fail(i, protocols.KindOther, l.ioErrs.Of("epoll_ctl", err))
		return false
	}
	return true
}

// writeFailed fails a request whose write failed: on a new connection
// before any byte left, a failed handshake, as the worker's dialer
// reports it.
func (l *tcpLoop) writeFailed(i int, errno error) {
	s := &l.slots[i]
	if l.eng.Opened(i) && l.eng.Slot(i).Out.BytesSent == 0 && !protocols.ClosedByPeer(errno) {
		l.eng.ConnectFailed(i, "connect", errno)
		return
	}
	err := l.ioErrs.Of("write", errno)
	l.eng.Fail(i, tcpErrorKind(err), l.fail.Fail(l.ops(s)[s.last].label, err, nil))
}

// Event handles what epoll reported of slot i's socket.
func (l *tcpLoop) Event(i int, events uint32) {
	s := &l.slots[i]
	s.hup = s.hup || events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
	switch s.state {
	case connWriting:
		s.inPending = s.inPending || events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
		l.write(i)
	case connReading:
		l.read(i)
	default:
		l.readIdle(i)
	}
}

// Closed forgets slot i's connection, and what was read from it.
func (l *tcpLoop) Closed(i int) {
	s := &l.slots[i]
	s.hup, s.inPending = false, false
	if s.rd != nil {
		s.rd.reset()
	}
}

// Ended frees slot i for its next request, and hands its read buffer back
// to the free list when it holds nothing unread; one that grew for a
// large reply stays with the slot.
func (l *tcpLoop) Ended(i int) {
	s := &l.slots[i]
	s.state, s.wire = connIdle, nil
	if s.rd != nil && s.rd.empty() && len(s.rd.buf) <= initialReadBuffer {
		s.rd.reset()
		l.free = append(l.free, s.rd)
		s.rd = nil
	}
}

// takeReader is a read buffer from the loop's free list. A slot holds one
// only while a reply arrives, so a million connections waiting hold none.
func (l *tcpLoop) takeReader() *frameReader {
	if n := len(l.free); n > 0 {
		r := l.free[n-1]
		l.free = l.free[:n-1]
		return r
	}
	return &frameReader{}
}

// complete records slot i's iteration, all of whose steps passed.
func (l *tcpLoop) complete(i int) {
	if l.target.Connection == scenarios.PerIteration {
		l.eng.Close(i)
	}
	l.eng.Finish(i)
}

// replyFailed fails the expect at s.at, of slot i, with err and kind, and
// quotes what arrived of its reply.
func (l *tcpLoop) replyFailed(i int, kind protocols.ErrorKind, err error) {
	s := &l.slots[i]
	l.eng.Fail(i, kind, l.fail.Fail(l.ops(s)[s.at].label, err, s.rd.pending()))
}

// readErr is the kind and words of a read that failed with errno.
func (l *tcpLoop) readErr(errno error) (protocols.ErrorKind, error) {
	err := l.ioErrs.Of("read", errno)
	return tcpErrorKind(err), protocols.StreamReplyError(err)
}

// eofErr is the kind and words of the server's close while slot s awaited
// a reply.
func eofErr(s *tcpSlot) (protocols.ErrorKind, error) {
	err := io.EOF
	if !s.rd.empty() {
		err = io.ErrUnexpectedEOF
	}
	return tcpErrorKind(err), protocols.StreamReplyError(err)
}
