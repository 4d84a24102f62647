package tcp

import (
	"errors"
	"net"

	"github.com/loadgate/loadgate/protocols"
)

// rawExchange is the TCP client's protocols.RawExchange: a request's
// messages written and the first bytes of its reply read with one read
// system call, into the frame reader.
type rawExchange struct {
	protocols.RawExchange
	rd    *frameReader
	limit int           // how far rd's buffer may grow
	full  error         // room's error: rd's buffer cannot grow
	space func() []byte // room, bound once
}

// attach readies the exchange for conn and reports whether conn is a plain
// socket it can drive.
func (x *rawExchange) attach(conn net.Conn, rd *frameReader, limit int) bool {
	x.rd, x.limit = rd, limit
	if x.space == nil {
		x.space = x.room
	}
	return x.Attach(conn, x.space)
}

// room is the frame reader's free space, or none when it cannot grow.
func (x *rawExchange) room() []byte {
	buf, err := x.rd.room(x.limit)
	x.full = err
	return buf
}

// exchange writes wire and reads the first bytes of the reply into the
// frame reader, which must hold no unread bytes; or writes only as much of
// wire as one write took when the socket would not take it all, and the
// caller writes the rest and reads as usual. It returns the bytes written
// and read, and the write's error; an error of the wait or the read is
// left in the reader, which reports it in its turn.
func (x *rawExchange) exchange(wire []byte) (sent, got int, err error) {
	x.full = nil
	x.Start(wire, false)
	werr := x.Wait()
	x.Done()
	n, rerr := x.Got()
	x.rd.w += n
	switch {
	case x.WriteErr() != nil:
	case werr != nil:
		// The wait is the reply's read, and is worded so, as net.Conn's
		// own read would be.
		var oe *net.OpError
		if errors.As(werr, &oe) && oe.Op == "raw-read" {
			oe.Op = "read"
		}
		x.rd.err = werr
	case rerr != nil:
		x.rd.err = rerr
	case x.full != nil:
		x.rd.err = x.full
	}
	return x.Sent(), n, x.WriteErr()
}
