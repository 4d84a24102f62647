package websocket

import (
	"net"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// exchange is the WebSocket client's protocols.RawExchange: a message's
// frames written inside the wait for its echo on a plain TCP connection,
// which then costs a write and one read. A connection idle for longer
// than exchangeIdle is written and read as usual (see RawExchange).
type exchange struct {
	raw protocols.RawExchange
	ok  bool // the connection can be driven raw (not wss)
	// wire is the frames to write; armed says they wait for the next Read.
	wire    []byte
	armed   bool
	werr    error
	sent    int
	rbuf    []byte // the buffer of the Read under way
	src     net.Conn
	last    time.Time // when the connection's last iteration began; zero: new
	readBuf func() []byte
}

// exchangeIdle bounds how long a connection may have been idle and still
// have its frames written inside the wait for their answer: far below any
// server's idle timeout, far above the gap between back-to-back messages.
const exchangeIdle = protocols.RawIdleLimit

// attach readies the exchange for conn, a new connection.
func (x *exchange) attach(conn net.Conn) {
	x.src, x.armed, x.last = conn, false, time.Time{}
	if x.readBuf == nil {
		x.readBuf = func() []byte { return x.rbuf } // bound once: one per message would allocate
	}
	x.ok = conn != nil && x.raw.Attach(conn, x.readBuf)
}

// recent reports whether an iteration beginning at now finds its
// connection new or busy moments ago, and records now as its last.
func (x *exchange) recent(now time.Time) bool {
	ok := x.last.IsZero() || now.Sub(x.last) <= exchangeIdle
	x.last = now
	return ok
}

// arm makes wire go out with the next Read, and reports whether it will:
// false means the caller writes it as usual.
func (x *exchange) arm(wire []byte) bool {
	if !x.ok {
		return false
	}
	x.wire, x.sent, x.armed, x.werr = wire, 0, true, nil
	return true
}

// done ends an armed exchange: it reports how many bytes of the frames
// went out and the write's error, if any.
func (x *exchange) done() (int, error) {
	n, err := x.sent, x.werr
	x.wire, x.sent, x.armed, x.werr = nil, 0, false, nil
	return n, err
}

// Read writes the armed frames and reads the answer's first bytes in one
// RawConn.Read, or reads from the connection as usual when nothing is
// armed. Frames the socket took only part of are finished with Write.
func (x *exchange) Read(b []byte) (int, error) {
	if !x.armed {
		return x.src.Read(b)
	}
	x.armed = false
	x.rbuf = b
	x.raw.Start(x.wire, false)
	err := x.raw.Wait()
	x.raw.Done()
	x.rbuf = nil
	x.sent, x.werr = x.raw.Sent(), x.raw.WriteErr()
	switch {
	case x.werr != nil:
		return 0, x.werr
	case err != nil:
		return 0, err
	case x.sent < len(x.wire):
		n, err := x.src.Write(x.wire[x.sent:])
		x.sent += n
		if err != nil {
			x.werr = err
			return 0, err
		}
		return x.src.Read(b)
	}
	return x.raw.Got()
}
