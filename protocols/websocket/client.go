package websocket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/gobwas/ws"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// wsClient drives one worker of a WebSocket target: one connection, kept
// across iterations (persistent) or opened and closed around each one.
type wsClient struct {
	target    *scenarios.WebSocketTarget
	onConnect []wsOp
	iteration []wsOp
	dialer    ws.Dialer
	netDialer net.Dialer
	env       protocols.RenderEnv
	wbuf      []byte // frames not yet written, reused across iterations
	pbuf      []byte // a rendered payload, before it is masked into wbuf
	ctlbuf    [maxHeader + maxControl]byte
	rd        msgReader
	x         exchange
	// fail is the error of a failed step, refilled by each failure so
	// that a failure allocates nothing.
	fail protocols.StepError

	// wc is the worker's connection, which Close or a cancelled phase
	// may interrupt while Do is blocked on it.
	wc protocols.WorkerConn
}

// wsOp is a step prepared for sending or checking.
type wsOp struct {
	op     ws.OpCode // OpText or OpBinary for a send
	tpl    *scenarios.Template
	static []byte // the payload, when it has no placeholders
	expect *scenarios.WSExpectCheck
	// label names the step in its failures: "step 2 (expect)".
	label string
	// errEquals, errContains and errRegex say which check a message
	// failed, worded once per client so a failing check allocates nothing.
	errEquals, errContains, errRegex error
}

var _ protocols.Client = (*wsClient)(nil)

// NewClient makes the client of one worker of WebSocket target t: it runs
// the target's on_connect steps on every new connection, then one
// iteration of its steps per Do.
func NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	w := t.WebSocket
	if w == nil {
		return nil, fmt.Errorf("target %q has no websocket block", t.Name)
	}
	u, err := url.Parse(w.URL)
	if err != nil {
		return nil, fmt.Errorf("target %q: websocket url: %w", t.Name, err)
	}
	c := &wsClient{target: w, env: protocols.NewRenderEnv(worker), rd: newMsgReader(w.MaxMessage)}
	// Keep-alive probes would add traffic the scenario did not ask for; a
	// persistent connection is used continuously anyway.
	c.netDialer.KeepAlive = -1
	c.dialer.NetDial = c.netDialer.DialContext
	c.dialer.Header, c.dialer.Host = handshakeHeader(w.Headers)
	if u.Scheme == "wss" {
		conf, err := protocols.TLSConfig(t.Name, &w.TLS)
		if err != nil {
			return nil, err
		}
		conf.ServerName = u.Hostname() // set once, or every dial clones the config
		c.dialer.TLSConfig = conf
	}
	c.onConnect = prepare(w.OnConnect, "on_connect ")
	c.iteration = prepare(w.Iteration, "")
	return c, nil
}

// handshakeHeader is the scenario's headers as the opening handshake
// sends them, in file order; a Host header names the virtual host instead.
func handshakeHeader(hs []scenarios.Header) (ws.HandshakeHeader, string) {
	var b bytes.Buffer
	host := ""
	for _, h := range hs {
		if strings.EqualFold(h.Name, "Host") {
			host = h.Value
			continue
		}
		b.WriteString(h.Name)
		b.WriteString(": ")
		b.WriteString(h.Value)
		b.WriteString("\r\n")
	}
	if b.Len() == 0 {
		return nil, host
	}
	return ws.HandshakeHeaderBytes(b.Bytes()), host
}

// prepare readies steps, whose failures name them with prefix.
func prepare(steps []scenarios.WSStep, prefix string) []wsOp {
	ops := make([]wsOp, len(steps))
	for i := range steps {
		s, op := &steps[i], &ops[i]
		op.label = fmt.Sprintf("%sstep %d (send)", prefix, i+1)
		switch s.Kind {
		case scenarios.WSExpect:
			op.label = fmt.Sprintf("%sstep %d (expect)", prefix, i+1)
			op.expect = &s.Expect
			op.errEquals, op.errContains, op.errRegex = expectErrors(&s.Expect)
			continue
		case scenarios.WSSendText:
			op.op = ws.OpText
		default:
			op.op = ws.OpBinary
		}
		op.tpl = &s.Payload
		if s.Payload.Static() {
			op.static = literal(&s.Payload)
		}
	}
	return ops
}

// literal is the bytes of a template without placeholders.
func literal(t *scenarios.Template) []byte {
	b := []byte{}
	for _, p := range t.Parts {
		b = append(b, p.Literal...)
	}
	return b
}

// expectErrors word the checks of e that a message can fail.
func expectErrors(e *scenarios.WSExpectCheck) (equals, contains, regex error) {
	if e.Equals != nil {
		equals = fmt.Errorf("message does not equal %s", quote(e.Equals))
	}
	if e.Contains != nil {
		contains = fmt.Errorf("message does not contain %s", quote(e.Contains))
	}
	if e.Regex != nil {
		regex = fmt.Errorf("message does not match /%s/", e.Regex)
	}
	return equals, contains, regex
}

// quote shows a checked string in an error, shortened when it is long.
func quote(b []byte) string {
	return protocols.Quote(b[:min(len(b), protocols.ShownBytes)], len(b) > protocols.ShownBytes)
}

// Do runs one iteration, first opening a connection and running on_connect
// when the worker has none. Time spent opening is reported as Connect.
func (c *wsClient) Do(ctx context.Context, _ int, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	c.env.Next()
	conn := c.wc.Begin(ctx, c.target.Timeout, out, c.open, c.drop)
	if conn == nil {
		return
	}
	out.Kind = c.run(conn, c.iteration, out)
	switch {
	case out.Kind != protocols.KindNone:
		// After a failure the stream's state is unknown: the next
		// iteration starts on a new connection.
		c.drop()
	case c.target.Connection == scenarios.PerIteration:
		c.closeHandshake(conn, out)
		c.drop()
	}
}

// open dials, performs the opening handshake and runs on_connect on the
// new connection.
func (c *wsClient) open(ctx context.Context, deadline time.Time, out *protocols.Outcome) (net.Conn, protocols.ErrorKind) {
	c.netDialer.Deadline = deadline
	c.dialer.Timeout = time.Until(deadline)
	if c.dialer.Timeout <= 0 {
		out.Err = os.ErrDeadlineExceeded
		return nil, protocols.KindTimeout
	}
	conn, br, _, err := c.dialer.Dial(ctx, c.target.URL)
	if err != nil {
		out.Err = err
		return nil, dialErrorKind(ctx, err, deadline, out)
	}
	if !c.wc.Set(conn) {
		out.Err = net.ErrClosed
		return nil, protocols.KindOther
	}
	c.rd.reset()
	c.x.attach(conn)
	if br != nil {
		// The server wrote frames right after its handshake response.
		p, _ := br.Peek(br.Buffered())
		c.rd.preload(p)
		ws.PutReader(br)
	}
	if err := conn.SetDeadline(deadline); err != nil {
		c.drop()
		out.Err = err
		return nil, protocols.KindOther
	}
	if kind := c.run(conn, c.onConnect, out); kind != protocols.KindNone {
		c.drop()
		return nil, kind
	}
	return conn, protocols.KindNone
}

// dialErrorKind classifies a failed dial or opening handshake, which had
// until deadline. A server that answers the handshake with a status other
// than 101 refused the upgrade: a "status" error carrying that status.
// Any other failure is the network's (protocols.ConnectFailure).
func dialErrorKind(ctx context.Context, err error, deadline time.Time, out *protocols.Outcome) protocols.ErrorKind {
	if status, ok := errors.AsType[ws.StatusError](err); ok {
		out.Status = int(status)
		return protocols.KindStatus
	}
	return protocols.ConnectFailure(ctx, err, deadline)
}

// run performs steps on conn. Consecutive sends go out in one write, as a
// buffered stream would send them.
func (c *wsClient) run(conn net.Conn, ops []wsOp, out *protocols.Outcome) protocols.ErrorKind {
	c.wbuf = c.wbuf[:0]
	sent := "" // the last send buffered, which a failed write is charged to
	recent := c.x.recent(time.Now())
	for i := range ops {
		op := &ops[i]
		if op.expect == nil {
			c.encode(op)
			sent = op.label
			continue
		}
		// With nothing buffered, reading the answer needs a Read, which
		// sends the frames armed: they cannot be left behind.
		var src io.Reader = conn
		armed := recent && len(c.wbuf) > 0 && c.rd.r == c.rd.w && c.x.arm(c.wbuf)
		if armed {
			src = &c.x
		} else if kind := c.flush(conn, sent, out); kind != protocols.KindNone {
			return kind
		}
		before := c.rd.n
		msg, err := c.rd.next(src, c)
		out.BytesReceived += c.rd.n - before
		if armed {
			n, werr := c.x.done()
			out.BytesSent += int64(n)
			c.wbuf = c.wbuf[:0]
			if werr != nil {
				out.Err = c.fail.Fail(sent, werr, nil)
				return errorKind(werr)
			}
		}
		if err != nil {
			out.Err = c.fail.Fail(op.label, err, nil)
			return errorKind(err)
		}
		if why := op.mismatch(msg); why != nil {
			out.Err = c.fail.Fail(op.label, why, msg)
			return protocols.KindCheck
		}
	}
	return c.flush(conn, sent, out)
}

// encode appends op's message to wbuf as one masked frame.
func (c *wsClient) encode(op *wsOp) {
	payload := op.static
	if payload == nil {
		c.pbuf = c.env.Render(c.pbuf[:0], op.tpl)
		payload = c.pbuf
	}
	c.wbuf = appendFrame(c.wbuf, op.op, payload, c.maskKey())
}

// maskKey is a fresh masking key per frame, as RFC 6455 §5.3 asks; it
// only needs to be unpredictable to the page's script, which a load
// generator has none of, so the worker's own generator serves.
func (c *wsClient) maskKey() [4]byte {
	v := c.env.Rand().Uint32()
	return [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// flush writes the frames buffered, the last of them step sent's.
func (c *wsClient) flush(conn net.Conn, sent string, out *protocols.Outcome) protocols.ErrorKind {
	if len(c.wbuf) == 0 {
		return protocols.KindNone
	}
	n, err := conn.Write(c.wbuf)
	out.BytesSent += int64(n)
	c.wbuf = c.wbuf[:0]
	if err != nil {
		out.Err = c.fail.Fail(sent, err, nil)
		return errorKind(err)
	}
	return protocols.KindNone
}

// control answers a control frame met while reading: a ping with its pong,
// a close frame with a close frame. A failed write surfaces as the next
// read's error, so it is not reported here.
func (c *wsClient) control(op ws.OpCode, payload []byte) {
	conn := c.wc.Current()
	if conn == nil {
		return
	}
	frame := appendFrame(c.ctlbuf[:0], op, payload, c.maskKey())
	_, _ = conn.Write(frame)
}

// closeHandshake starts the closing handshake of a per-iteration
// connection, so the server sees a clean close rather than a dropped
// connection; the server's reply is not waited for.
func (c *wsClient) closeHandshake(conn net.Conn, out *protocols.Outcome) {
	frame := appendFrame(c.ctlbuf[:0], ws.OpClose, normalClosure[:], c.maskKey())
	n, _ := conn.Write(frame)
	out.BytesSent += int64(n)
}

var normalClosure = [2]byte{0x03, 0xe8} // 1000

// mismatch is the check msg fails, or nil when it passes them all.
func (op *wsOp) mismatch(msg []byte) error {
	e := op.expect
	switch {
	case e.Equals != nil && !bytes.Equal(msg, e.Equals):
		return op.errEquals
	case e.Contains != nil && !bytes.Contains(msg, e.Contains):
		return op.errContains
	case e.Regex != nil && !e.Regex.Match(msg):
		return op.errRegex
	}
	return nil
}

// errorKind maps a read, write or frame error to the kinds of SPEC §3: a
// frame that breaks RFC 6455 is the protocol's, the server's close frame a
// reset, the rest the network's.
func errorKind(err error) protocols.ErrorKind {
	switch {
	case protocolError(err):
		return protocols.KindProtocol
	case err == errClosed:
		return protocols.KindReset
	}
	if k := protocols.NetErrorKind(err); k != protocols.KindNone {
		return k
	}
	return protocols.KindOther
}

// drop closes the worker's connection; the next iteration opens another.
func (c *wsClient) drop() {
	c.wc.Drop()
	c.rd.reset()
	c.x.attach(nil)
}

// Close closes the worker's connection. It may run while Do is blocked,
// which then returns promptly.
func (c *wsClient) Close() error { return c.wc.Close() }
