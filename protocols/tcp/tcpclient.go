package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// tcpClient drives one worker of a TCP target. Like ab -c or a LoadRunner
// vuser, a worker is one connection: kept across iterations (persistent)
// or opened and closed around each one (per_iteration).
type tcpClient struct {
	target *scenarios.TCPTarget
	*steps
	dialer net.Dialer
	env    protocols.RenderEnv
	wbuf   []byte // messages not yet written, reused across iterations
	rd     frameReader
	// fail is the error of a failed step, refilled by each failure so
	// that a failure allocates nothing.
	fail protocols.StepError

	// wc is the worker's connection, which Close or a cancelled phase
	// may interrupt while Do is blocked on it.
	wc protocols.WorkerConn
	// raw writes a request and reads its reply on the descriptor when
	// rawOK (a plain socket); fresh says the connection is new, so it
	// cannot have been closed while idle (see rawExchange).
	raw          rawExchange
	rawOK, fresh bool
}

var _ protocols.Client = (*tcpClient)(nil)

// NewClient makes the client of one worker of TCP target t: it runs the
// target's on_connect steps on every new connection, then one iteration
// of its steps per Do.
func NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	if t.TCP == nil {
		return nil, fmt.Errorf("target %q has no tcp block", t.Name)
	}
	c := &tcpClient{target: t.TCP, steps: newSteps(t.TCP), env: protocols.NewRenderEnv(worker)}
	// Keep-alive probes would add traffic the scenario did not ask for; a
	// persistent connection is used continuously anyway.
	c.dialer.KeepAlive = -1
	return c, nil
}

// Do runs one iteration, first opening a connection and running on_connect
// when the worker has none. Time spent opening is reported as Connect.
func (c *tcpClient) Do(ctx context.Context, _ int, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	c.env.Next()
	conn := c.wc.Begin(ctx, c.target.Timeout, out, c.open, c.drop)
	if conn == nil {
		return
	}
	raw := c.rawOK && (c.fresh || c.wc.SinceLast() < protocols.RawIdleLimit)
	c.fresh = false
	out.Kind = c.run(conn, c.iteration, raw, out)
	if out.Kind != protocols.KindNone || c.target.Connection == scenarios.PerIteration {
		// After a failure the stream's state is unknown: the next
		// iteration starts on a new connection.
		c.drop()
	}
}

// open dials and runs on_connect on the new connection.
func (c *tcpClient) open(ctx context.Context, deadline time.Time, out *protocols.Outcome) (net.Conn, protocols.ErrorKind) {
	c.dialer.Deadline = deadline
	conn, err := c.dialer.DialContext(ctx, "tcp", c.target.Address)
	if err != nil {
		out.Err = err
		return nil, protocols.ConnectFailure(ctx, err, deadline)
	}
	if !c.wc.Set(conn) {
		out.Err = net.ErrClosed
		return nil, protocols.KindOther
	}
	c.rd.reset()
	c.rawOK, c.fresh = c.raw.attach(conn, &c.rd, c.codec.limit()), true
	if err := conn.SetDeadline(deadline); err != nil {
		c.drop()
		out.Err = err
		return nil, protocols.KindOther
	}
	if kind := c.run(conn, c.onConnect, c.rawOK, out); kind != protocols.KindNone {
		c.drop()
		return nil, kind
	}
	return conn, protocols.KindNone
}

// run performs steps on conn. Consecutive sends go out in one write, as a
// buffered stream would send them, so a message is never split across
// system calls by the client; with raw, the write of those an expect
// follows goes through the raw exchange.
func (c *tcpClient) run(conn net.Conn, ops []tcpOp, raw bool, out *protocols.Outcome) protocols.ErrorKind {
	c.wbuf = c.wbuf[:0]
	sent := "" // the last send buffered, which a failed write is charged to
	for i := range ops {
		op := &ops[i]
		if op.expect == nil {
			c.wbuf = c.encode(c.wbuf, op, &c.env)
			sent = op.label
			continue
		}
		if kind := c.flush(conn, sent, raw, out); kind != protocols.KindNone {
			return kind
		}
		payload, n, err := c.rd.next(conn, &c.codec, op.expect)
		out.BytesReceived += n
		if err != nil {
			// What arrived of the reply, if anything, shows why it
			// never completed.
			out.Err = c.fail.Fail(op.label, protocols.StreamReplyError(err), c.rd.pending())
			return tcpErrorKind(err)
		}
		if why := op.mismatch(payload); why != nil {
			out.Err = c.fail.Fail(op.label, why, payload)
			return protocols.KindCheck
		}
	}
	return c.flush(conn, sent, false, out)
}

// flush writes the messages buffered, the last of them step sent's; with
// raw, through the raw exchange, which also reads the reply's first bytes
// when no unread byte could hold it already.
func (c *tcpClient) flush(conn net.Conn, sent string, raw bool, out *protocols.Outcome) protocols.ErrorKind {
	if len(c.wbuf) == 0 {
		return protocols.KindNone
	}
	n := 0
	var err error
	if raw && c.rd.empty() {
		var got int
		n, got, err = c.raw.exchange(c.wbuf)
		out.BytesReceived += int64(got)
	}
	if err == nil && n < len(c.wbuf) {
		var m int
		m, err = conn.Write(c.wbuf[n:])
		n += m
	}
	out.BytesSent += int64(n)
	c.wbuf = c.wbuf[:0]
	if err != nil {
		out.Err = c.fail.Fail(sent, err, nil)
		return tcpErrorKind(err)
	}
	return protocols.KindNone
}

// tcpErrorKind maps a read, write or frame error to the kinds of SPEC §3:
// a frame the codec refuses is the protocol's, the rest the network's.
func tcpErrorKind(err error) protocols.ErrorKind {
	if errors.Is(err, errFrameTooLarge) || errors.Is(err, errBadFrame) {
		return protocols.KindProtocol
	}
	if k := protocols.NetErrorKind(err); k != protocols.KindNone {
		return k
	}
	return protocols.KindOther
}

// drop closes the worker's connection; the next iteration opens another.
func (c *tcpClient) drop() {
	c.wc.Drop()
	c.rd.reset()
	c.rawOK = false
}

// Close closes the worker's connection. It may run while Do is blocked,
// which then returns promptly.
func (c *tcpClient) Close() error { return c.wc.Close() }
