//go:build linux

package tcp

import (
	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// read reads what slot i's socket holds and checks it against the
// expects, until the steps go on, one fails, or a read leaves room in the
// buffer: a TCP socket that fills less than it was offered has been
// emptied, and its next bytes will be reported anew.
func (l *tcpLoop) read(i int) {
	s, c := &l.slots[i], l.eng.Slot(i)
	s.inPending = false
	if s.rd == nil {
		s.rd = l.takeReader()
	}
	rd := s.rd
	for {
		if l.replies(i) {
			return
		}
		room, err := rd.room(l.codec.limit())
		if err != nil {
			l.replyFailed(i, tcpErrorKind(err), err)
			return
		}
		n, err := protocols.RawRead(uintptr(c.FD), room)
		switch {
		case err == unix.EAGAIN:
			return
		case err != nil:
			kind, err := l.readErr(err)
			l.replyFailed(i, kind, err)
			return
		case n == 0:
			kind, err := eofErr(s)
			l.replyFailed(i, kind, err)
			return
		}
		rd.w += n
		c.Out.BytesReceived += int64(n)
		if n < len(room) && !s.hup {
			l.replies(i)
			return
		}
	}
}

// replies checks the replies buffered for slot i against its expects, in
// turn, and goes on with the steps once they have passed. It reports
// whether the slot is done waiting for this socket's bytes: its steps went
// on, or one failed.
func (l *tcpLoop) replies(i int) bool {
	s := &l.slots[i]
	ops := l.ops(s)
	rd := s.rd
	for int(s.at) < len(ops) && ops[s.at].expect != nil {
		op := &ops[s.at]
		lo, hi, n, err := l.codec.split(rd.buf[rd.r:rd.w], op.expect)
		switch {
		case err != nil:
			l.replyFailed(i, tcpErrorKind(err), err)
			return true
		case n == 0:
			return false
		}
		payload := rd.buf[rd.r+lo : rd.r+hi]
		if why := op.mismatch(payload); why != nil {
			l.eng.Fail(i, protocols.KindCheck, l.fail.Fail(op.label, why, payload))
			return true
		}
		if rd.r += n; rd.r == rd.w {
			rd.r, rd.w = 0, 0
		}
		s.at++
	}
	l.advance(i)
	return true
}

// readIdle handles an idle connection's event: bytes no request asked for
// stay buffered for the next request's expects, as the worker client's
// reader keeps them; a connection the server closed, or one whose unread
// bytes outgrow a reply, is closed, and the next request opens another.
func (l *tcpLoop) readIdle(i int) {
	s, c := &l.slots[i], l.eng.Slot(i)
	if c.FD < 0 {
		return
	}
	if s.rd == nil {
		s.rd = l.takeReader()
	}
	for {
		room, err := s.rd.room(l.codec.limit())
		if err != nil {
			l.eng.Close(i)
			return
		}
		n, err := protocols.RawRead(uintptr(c.FD), room)
		switch {
		case err == unix.EAGAIN:
			if s.hup {
				l.eng.Close(i)
			}
			return
		case err != nil || n == 0:
			l.eng.Close(i)
			return
		}
		s.rd.w += n
		if n < len(room) {
			if s.hup {
				l.eng.Close(i)
			}
			return
		}
	}
}
