//go:build linux

package http2

import (
	"context"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
)

// h2Loop is HTTP/2 on the event loop (see loop.go): its connections are
// its own (evloop.ConnProtocol), and each of the engine's slots is one
// stream on one of them at a time.
type h2Loop struct {
	loopTarget
	eng   *evloop.Engine
	slots []h2Slot
	// conns are the connections by number, the tag the engine reports
	// their events with; a dead one's number is reused (spare).
	conns []*h2Conn
	spare []int32
	dying []int32 // retired since the last Flush, spare after it
	// current is the connection of each of the loop's conns groups that
	// new streams go to, -1 when it has none open: one that goes away
	// drains its streams while its successor takes the new ones.
	current []int32
	dirty   []int32 // connections with bytes to write (see Flush)
	rbuf    []byte  // what a read brings, shared by the connections
	open    bool    // the open model: arrivals go to the connections in turn
	turn    int
}

// h2Slot is what HTTP/2 keeps of an engine's slot: its stream.
type h2Slot struct {
	conn       int32  // the connection of its stream, -1 when it has none
	id         uint32 // its stream, 0 while it waits for a place on conn
	sendWindow int32  // the server's window for the stream's body
	bodySent   int32  // bytes of the request's body sent
	bodyLen    int64  // bytes of the response's body received
	status     int16  // the response's status, once its headers came
	waiting    bool   // it waits on conn for a stream (conn.wait)
	retried    bool   // a graceful GOAWAY refused it once (see goAwayFrame)
	blocked    bool   // its body waits for a window (conn.blocked)
	gotHeaders bool   // its response's headers came
}

func newH2Loop(cfg evloop.Config, t loopTarget) protocols.Loop {
	l := &h2Loop{loopTarget: t, rbuf: make([]byte, loopReadSize)}
	l.eng = evloop.New(cfg, l)
	return l
}

// loopReadSize is the most a read takes: the frames of many responses,
// and room for the part of a frame that one read left over.
const loopReadSize = 256 << 10

// Run drives the job's load from this goroutine (see evloop.Engine.Run)
// and closes the loop's connections after it.
func (l *h2Loop) Run(ctx context.Context, job *protocols.LoopJob) error {
	l.open = job.Arrival != nil
	l.current = make([]int32, l.groups)
	for g := range l.current {
		l.current[g] = -1
	}
	err := l.eng.Run(ctx, job)
	for _, c := range l.conns {
		if c.fd >= 0 {
			l.eng.CloseConn(c.fd)
			c.fd = -1
		}
	}
	return err
}

// Grow makes room for the engine's n slots.
func (l *h2Loop) Grow(n int) {
	old := len(l.slots)
	l.slots = evloop.Grow(l.slots, n)
	for i := old; i < n; i++ {
		l.slots[i].conn = -1
	}
}

// Issue sends slot i's request as a new stream on its connection, opened
// first when it has none, or has it wait there for a place.
func (l *h2Loop) Issue(i int) {
	s := &l.slots[i]
	*s = h2Slot{conn: -1}
	g := i % len(l.current)
	if l.open {
		g = l.turn
		l.turn = (l.turn + 1) % len(l.current)
	}
	c := l.connOf(g, i)
	if c == nil {
		return
	}
	if c.state == connOpen && c.active < c.maxStreams {
		l.startStream(c, i)
		return
	}
	l.wait(c, i)
}

// wait queues slot i on c until c may open one more stream.
func (l *h2Loop) wait(c *h2Conn, i int) {
	s := &l.slots[i]
	s.conn, s.id, s.waiting = c.num, 0, true
	c.wait = append(c.wait, int32(i))
}

// Closed cancels slot i's request, which the engine gave up (its
// timeout, the phase's end): a stream is reset, a place waited for
// forgotten. A request the loop ended itself has left its connection
// first, so that this is a no-op.
func (l *h2Loop) Closed(i int) {
	s := &l.slots[i]
	if s.conn < 0 {
		return
	}
	c := l.conns[s.conn]
	if s.waiting {
		// Its place in c.wait is skipped when reached (see startWaiting).
		s.waiting, s.conn = false, -1
		return
	}
	l.resetStream(c, s.id, codeCancel)
	l.leave(c, i)
	l.startWaiting(c)
	l.drained(c)
}

// Event is never called: the slots have no sockets of their own.
func (l *h2Loop) Event(int, uint32) {}

// Ended lets go of slot i's request, which has been recorded.
func (l *h2Loop) Ended(i int) { l.slots[i].conn = -1 }

// leave takes slot i's stream off its connection c, and charges its
// request the bytes c carried for all its streams since the last request
// that ended on it: streams interleave, so the totals are exact where a
// share would not be.
func (l *h2Loop) leave(c *h2Conn, i int) {
	s := &l.slots[i]
	c.streams.remove(s.id)
	c.active--
	s.conn = -1
	out := &l.eng.Slot(i).Out
	out.BytesSent += c.sentShared
	out.BytesReceived += c.received
	c.sentShared, c.received = 0, 0
}

// finish records slot i's response, all in, and frees its stream's place.
func (l *h2Loop) finish(c *h2Conn, i int) {
	s := &l.slots[i]
	out := &l.eng.Slot(i).Out
	out.Status = int(s.status)
	out.Kind, out.Err = l.expect.Verdict(int(s.status), s.bodyLen)
	l.leave(c, i)
	l.eng.Finish(i)
	l.startWaiting(c)
	l.drained(c)
}

// failStream fails slot i's request on c with kind and err, resetting
// its stream when the server is not done with it (reset).
func (l *h2Loop) failStream(c *h2Conn, i int, kind protocols.ErrorKind, err error, reset bool) {
	if reset {
		l.resetStream(c, l.slots[i].id, codeCancel)
	}
	l.leave(c, i)
	l.eng.Fail(i, kind, err)
	l.startWaiting(c)
	l.drained(c)
}

// startWaiting opens streams for the slots waiting on c while it has
// places for them.
func (l *h2Loop) startWaiting(c *h2Conn) {
	for c.state == connOpen && c.active < c.maxStreams && c.waitHead < len(c.wait) {
		i := int(c.wait[c.waitHead])
		c.waitHead++
		if s := &l.slots[i]; s.waiting && s.conn == c.num {
			l.startStream(c, i)
		}
	}
	if c.waitHead == len(c.wait) {
		c.wait, c.waitHead = c.wait[:0], 0
	}
}

// startStream sends slot i's request as c's next stream.
func (l *h2Loop) startStream(c *h2Conn, i int) {
	if c.nextID > maxStreamID {
		// The connection has no ids left: its successor takes the request.
		l.goingAway(c)
		l.slots[i].waiting = false
		l.Issue(i)
		return
	}
	id := c.streams.free(c.nextID)
	if id > maxStreamID {
		l.goingAway(c)
		l.slots[i].waiting = false
		l.Issue(i)
		return
	}
	c.streams.put(id, int32(i))
	c.nextID = id + 2
	c.active++
	s, slot := &l.slots[i], l.eng.Slot(i)
	s.conn, s.id, s.waiting, s.sendWindow = c.num, id, false, c.peerWindow
	r := &l.reqs[slot.Req]
	at := len(c.out)
	c.out = append(c.out, r.headers...)
	hdr := c.out[at+5 : at+9]
	hdr[0], hdr[1], hdr[2], hdr[3] = byte(id>>24), byte(id>>16), byte(id>>8), byte(id)
	slot.Out.BytesSent += int64(len(r.headers))
	l.eng.Stamp(i)
	if len(r.body) > 0 {
		l.sendBody(c, i)
	}
	l.markDirty(c)
}

// sendBody sends what it can of slot i's request body within the
// server's windows; the rest waits on c.blocked for a WINDOW_UPDATE.
func (l *h2Loop) sendBody(c *h2Conn, i int) {
	s, slot := &l.slots[i], l.eng.Slot(i)
	body := l.reqs[slot.Req].body
	for int(s.bodySent) < len(body) {
		n := min(len(body)-int(s.bodySent), int(s.sendWindow), int(min(c.sendWindow, 1<<31)), c.peerFrame)
		if n <= 0 {
			if !s.blocked {
				s.blocked = true
				c.blocked = append(c.blocked, int32(i))
			}
			return
		}
		var flags byte
		if int(s.bodySent)+n == len(body) {
			flags = flagEndStream
		}
		c.out = frameHeader(c.out, n, frameData, flags, s.id)
		c.out = append(c.out, body[s.bodySent:int(s.bodySent)+n]...)
		s.bodySent += int32(n)
		s.sendWindow -= int32(n)
		c.sendWindow -= int64(n)
		slot.Out.BytesSent += int64(frameHeaderLen + n)
	}
}

// resumeBodies sends the bodies that waited on c for a window.
func (l *h2Loop) resumeBodies(c *h2Conn) {
	blocked := c.blocked
	c.blocked = c.blocked[:0]
	for _, i := range blocked {
		if s := &l.slots[i]; s.blocked && s.conn == c.num && s.id != 0 {
			s.blocked = false
			l.sendBody(c, int(i))
		}
	}
	if len(blocked) > 0 {
		l.markDirty(c)
	}
}

// markDirty lists c for the next Flush.
func (l *h2Loop) markDirty(c *h2Conn) {
	if !c.dirty {
		c.dirty = true
		l.dirty = append(l.dirty, c.num)
	}
}

// Flush writes what the round's requests and answers buffered, one write
// per connection.
func (l *h2Loop) Flush() {
	// A write that fails may open a connection to the target's next
	// address, which joins the list.
	for k := 0; k < len(l.dirty); k++ {
		c := l.conns[l.dirty[k]]
		c.dirty = false
		if c.fd >= 0 {
			l.write(c)
		}
	}
	l.dirty = l.dirty[:0]
	l.spare = append(l.spare, l.dying...)
	l.dying = l.dying[:0]
}
