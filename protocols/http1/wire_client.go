package http1

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/protocols/sockets"
	"github.com/loadgate/loadgate/scenarios"
)

// http1Client is the default client of HTTP targets: HTTP/1.1 written
// straight onto one net.Conn per worker, every request serialised once
// up front, every response parsed in one reusable buffer. A request costs
// one write and usually one read, and no allocation on a kept-alive
// connection, so the generator stays cheaper than the servers it measures.
type http1Client struct {
	target  *scenarios.HTTPTarget
	addr    string      // host:port to dial
	tlsConf *tls.Config // nil for http://
	reqs    []http1Request
	rd      respReader
	resp    response
	// expect is the checks of the response being read: the target's, or
	// a flow step's.
	expect   *httpcheck.Expectation
	proxy    *proxyRoute        // nil: the connection goes straight to the server
	reused   bool               // conn has carried a complete exchange
	raw      rawExchange        // of the current connection, when rawOK
	rawOK    bool               // conn is a plain socket the raw exchange can drive
	sock     *sockets.Addr      // non-nil: conn is opened by dialSocket
	src      *sockets.Sources   // of local_ips; nil: the kernel picks
	nagle    bool               // dialSocket leaves Nagle's algorithm on (see oneSegment)
	dialErrs sockets.DialErrors // of dialSocket, made once, for Outcome.Err
	// connecting says conn came from dialSocket and no byte of a request
	// has left on it yet: its handshake is not known to be over. dialStart
	// is when the dial began.
	connecting bool
	dialStart  time.Time
	// lastStart is when the previous request began; the time since bounds
	// how long the connection has been idle.
	lastStart time.Time
	dl        lazyDeadline // of a plain socket, or of the one under tlsOK's TLS
	// tls is the socket under an HTTPS connection, when tlsOK says it is
	// in use (see tlsSocket).
	tls   tlsSocket
	tlsOK bool
	vec   vecWriter // writes a request whose body is apart

	// mu guards conn, closed and watcher against interrupt and Close, which
	// run on other goroutines. Do, the only writer of conn, reads it without
	// mu.
	mu   sync.Mutex
	conn net.Conn // nil when no connection is open
	// under is the TCP connection under conn when conn is TLS on tls,
	// which Close closes: crypto/tls would send its close alert through tls
	// while Do may be reading from it.
	under   net.Conn
	closed  bool
	watched <-chan struct{} // Done of the context watcher watches, for Do
	watcher *ctxWatch
}

// http1Request is one entry of the mix, ready for the wire: wire, then
// body. A body of up to maxInlineBody bytes is copied into wire and body
// is nil; a bigger one is the target's own bytes, never copied, shared
// read-only by every worker and connection (see maxInlineBody).
type http1Request struct {
	wire  []byte
	body  []byte
	head  bool // a HEAD response has no body
	close bool // the request itself asks the server to close
}

var _ protocols.Client = (*http1Client)(nil)

// http1Unsupported says why the lean client cannot serve target h, or ""
// when it can; NewClient then falls back to net/http.
func http1Unsupported(h *scenarios.HTTPTarget) string {
	if h.HTTP2 {
		return "http2: true needs net/http"
	}
	var first *url.URL
	for _, r := range h.Requests {
		u, err := url.Parse(r.URL)
		if err != nil {
			return err.Error()
		}
		switch {
		case u.Scheme != "http" && u.Scheme != "https":
			return "scheme " + u.Scheme + " is not http or https"
		case r.Method == "CONNECT":
			return "CONNECT tunnels are not a request/response exchange"
		case !isASCII(u.Host):
			return "an internationalised host name needs IDNA conversion"
		case first == nil:
			first = u
			if p, err := proxyFor(h, u); err != nil || p != nil {
				// The lean client tunnels flows only (see proxyRoute); a
				// plain target through a proxy is net/http's job.
				return "a proxy needs net/http"
			}
		case u.Scheme != first.Scheme || u.Host != first.Host:
			// One connection per worker cannot reach two origins.
			return "requests go to more than one scheme://host"
		}
	}
	if first == nil {
		return "no request"
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// newHTTP1Client makes the lean HTTP/1.1 client of one worker.
func newHTTP1Client(t *scenarios.Target, worker int) (protocols.Client, error) {
	h := t.HTTP
	if h == nil {
		return nil, fmt.Errorf("target %q has no http block", t.Name)
	}
	if why := http1Unsupported(h); why != "" {
		return nil, fmt.Errorf("target %q: %s", t.Name, why)
	}
	u, _ := url.Parse(h.Requests[0].URL)
	c, err := newHTTP1Conn(t, u, nil, worker)
	if err != nil {
		return nil, err
	}
	c.use(httpcheck.NewExpectation(&h.Expect))
	for i := range h.Requests {
		r, err := serialize(&h.Requests[i], h.Keepalive)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", t.Name, err)
		}
		c.reqs = append(c.reqs, r)
	}
	c.nagle = oneSegment(c.reqs)
	return c, nil
}

// newHTTP1Conn makes a lean client of worker that reaches the origin of
// u, through proxy when it is set, with no request of its own yet.
func newHTTP1Conn(t *scenarios.Target, u *url.URL, proxy *proxyRoute, worker int) (*http1Client, error) {
	h := t.HTTP
	c := &http1Client{target: h, proxy: proxy, src: sockets.NewSources(h.LocalIPs, worker)}
	c.rd = newRespReader(h.MaxBody, nil)
	port := protocols.Port(u)
	c.addr = net.JoinHostPort(u.Hostname(), port)
	if u.Scheme == "https" {
		conf, err := protocols.TLSConfig(t.Name, &h.TLS)
		if err != nil {
			return nil, err
		}
		conf.ServerName = u.Hostname()
		conf.NextProtos = []string{"http/1.1"}
		c.tlsConf = conf
	}
	c.dialErrs = sockets.DialErrors{Addr: sockets.DialAddr(c.addr), Spread: c.src != nil}
	if c.tlsConf == nil && proxy == nil {
		c.sock = sockets.NewAddr(u.Hostname(), port)
	}
	return c, nil
}

// use makes e the checks of the following responses.
func (c *http1Client) use(e *httpcheck.Expectation) {
	c.expect, c.rd.body = e, e.Body
}

// Do sends request req and reads its whole response.
func (c *http1Client) Do(ctx context.Context, req int, out *protocols.Outcome) {
	c.exchange(ctx, &c.reqs[req], out)
}

// exchange sends p and reads its whole response, checked against the
// expectation in use.
func (c *http1Client) exchange(ctx context.Context, p *http1Request, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	// The response buffer goes back to the pool while the connection waits
	// for its next request.
	defer c.rd.release()
	c.watch(ctx)
	now := protocols.Now()
	var deadline time.Time // zero: no timeout
	if c.target.Timeout > 0 {
		deadline = now.Add(c.target.Timeout)
	}
	idle := now.Sub(c.lastStart)
	c.lastStart = now
	for attempt := 0; ; attempt++ {
		if !c.open(ctx, deadline, now, out) {
			return
		}
		if attempt == 0 && c.reused && c.rawOK {
			switch c.raw.idle() {
			case idleUnasked:
				// The server spoke while no request was out: its stream no
				// longer pairs answers with requests. This request is
				// charged with it, and not sent.
				c.drop()
				out.Kind, out.Err = protocols.KindProtocol, errUnasked
				return
			case idleClosing:
				c.drop()
				continue
			}
		}
		reused, connecting := c.reused, c.connecting
		c.resp.wire = 0
		// A new connection has had no time to be closed while idle.
		n, sentAt, err := c.send(p, connecting || reused && idle < rawIdleLimit)
		out.BytesSent += int64(n)
		if connecting && !c.connected(ctx, deadline, n, sentAt, err, out) {
			return
		}
		if err == nil {
			err = c.rd.read(p.head, &c.resp)
			out.BytesReceived += c.resp.wire
		}
		if err != nil {
			if c.failed(ctx, err, reused && attempt == 0, connecting, out) {
				continue
			}
			return
		}
		c.judge(p, out)
		return
	}
}

// open readies the connection for a request with deadline, starting at
// now: it dials one when there is none, or gives the open one the
// deadline. It reports false when the request has failed.
func (c *http1Client) open(ctx context.Context, deadline, now time.Time, out *protocols.Outcome) bool {
	if c.conn == nil {
		if out.Kind, out.Err = c.dial(ctx, deadline, out); out.Kind != protocols.KindNone {
			return false
		}
		c.dialed(deadline)
	} else if err := c.setDeadline(deadline, now); err != nil {
		c.drop()
		out.Kind, out.Err = protocols.KindOther, err
		return false
	}
	// interrupt may have run between the dial or the deadline above and
	// now; the deadline just set would then have undone it.
	if err := ctx.Err(); err != nil {
		c.drop()
		out.Kind, out.Err = protocols.KindOther, err
		return false
	}
	return true
}

// send writes p, through the raw exchange when raw allows it and p is
// one piece, which also reads the answer's first bytes. It returns the
// bytes written, when the first of them left if the exchange knows, and
// the write's error.
func (c *http1Client) send(p *http1Request, raw bool) (n int, sentAt time.Time, err error) {
	if raw && p.body == nil && c.tlsOK && c.rd.r == c.rd.w {
		c.tls.holdNext()
	} else if raw && p.body == nil && c.rawOK && c.rd.r == c.rd.w {
		c.raw.stamp = c.connecting
		n, err = c.raw.exchange(p.wire)
		if n > 0 {
			sentAt = c.raw.SentAt()
		}
	}
	for err == nil && n < p.size() {
		var m int
		m, err = c.write(p, n)
		n += m
		if early(err, c.raw.rearm) {
			err = nil
		}
	}
	return n, sentAt, err
}

// connected ends the first write on a new connection, n bytes that waited
// for the handshake and went out once the connection was up: it records
// the connect time, or fails the request when nothing went out. It reports
// whether the request goes on.
func (c *http1Client) connected(ctx context.Context, deadline time.Time, n int, sentAt time.Time, err error, out *protocols.Outcome) bool {
	if n == 0 {
		// The handshake failed, or the server closed the connection at once.
		c.drop()
		out.Kind, out.Err = protocols.KindReset, protocols.ReplyError(err)
		if !protocols.ClosedByPeer(err) {
			out.Kind = protocols.ConnectFailure(ctx, err, deadline)
			out.Err = c.dialErrs.Of("connect", err)
		}
		return false
	}
	if sentAt.IsZero() {
		sentAt = protocols.Now()
	}
	out.Connect = sentAt.Sub(c.dialStart)
	c.connecting = false
	return true
}

// failed records a failed exchange and drops its connection. It reports
// whether the request goes once more on a new connection, which it may
// when retry says it went out on a kept-alive one for the first time.
func (c *http1Client) failed(ctx context.Context, err error, retry, connecting bool, out *protocols.Outcome) bool {
	self := connecting && c.rawOK && sockets.SelfConnected(c.raw.Conn(), c.sock)
	c.drop()
	if self {
		// The kernel picked the target's own port for this end of the
		// connection, which then reached itself: nothing listens there.
		out.Kind, out.Err = protocols.KindConnect, c.dialErrs.Of("connect", syscall.ECONNREFUSED)
		return false
	}
	// A server may close an idle kept-alive connection at any time; finding
	// it closed before any answer is no failure of the server, so the
	// request goes once more on a new connection.
	if retry && c.resp.wire == 0 && protocols.ClosedByPeer(err) && ctx.Err() == nil {
		return true
	}
	out.Kind, out.Err = responseKind(err), protocols.ReplyError(err)
	return false
}

// judge records a complete response to p and keeps its connection for the
// next request when both ends agree.
func (c *http1Client) judge(p *http1Request, out *protocols.Outcome) {
	out.Status = c.resp.status
	switch {
	case c.rd.r != c.rd.w || c.tlsOK && c.tls.unsent():
		// More bytes came than the response holds: a second answer to one
		// request, which is charged with it. Or the answer was there before
		// the request left.
		c.drop()
		out.Kind, out.Err = protocols.KindProtocol, errUnasked
		return
	case c.resp.close || p.close || c.rd.rerr != nil:
		c.drop()
	default:
		c.reused = true
	}
	out.Kind, out.Err = c.expect.Verdict(c.resp.status, c.resp.bodyLen)
}

// dial opens the worker's connection (with its TLS handshake on https) and
// records how long that took; Do records it for dialSocket's connections.
func (c *http1Client) dial(ctx context.Context, deadline time.Time, out *protocols.Outcome) (protocols.ErrorKind, error) {
	start := time.Now()
	if c.sock != nil {
		return c.dialSocket(ctx, start, deadline)
	}
	// TCP keep-alive probes are for connections idle for long, which a load
	// test's are not, and setting them up costs four system calls.
	d := net.Dialer{Deadline: deadline, KeepAlive: -1, LocalAddr: c.src.DialerAddr()}
	addr := c.addr
	if c.proxy != nil {
		addr = c.proxy.addr
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return protocols.ConnectFailure(ctx, err, deadline), c.dialErrs.Worded(err)
	}
	if err := conn.SetDeadline(deadline); err != nil {
		conn.Close()
		return protocols.KindOther, err
	}
	if c.proxy != nil && c.tlsConf != nil {
		if err := c.proxy.tunnel(conn, c.addr); err != nil {
			conn.Close()
			return protocols.ConnectFailure(ctx, err, deadline), err
		}
	}
	c.tlsOK = false
	if c.tlsConf != nil {
		if conn, err = c.handshake(ctx, conn); err != nil {
			return protocols.ConnectFailure(ctx, err, deadline), err
		}
	}
	out.Connect = time.Since(start)
	if !c.setConn(conn) {
		return protocols.KindOther, net.ErrClosed
	}
	return protocols.KindNone, nil
}

// dialSocket opens the worker's connection to an IP address without
// net.Dialer, and without waiting for the handshake: the request's first
// write waits for it and reports how it ended, and Do records how long it
// took. With a connection per request, opening it is most of what a request
// costs the client. net.Dialer spends three system calls after the
// handshake (to check it and to learn the addresses of both ends) and a
// wait for the poller, and this way one (os.NewFile reads the socket's
// flags) and no wait when the handshake is over before connect returns, as
// it is on loopback.
func (c *http1Client) dialSocket(ctx context.Context, start, deadline time.Time) (protocols.ErrorKind, error) {
	c.dialStart = start
	fd, op, err := sockets.Open(c.sock, c.src.Socket(c.sock), c.nagle)
	if err != nil {
		return protocols.ConnectFailure(ctx, err, deadline), c.dialErrs.Of(op, err)
	}
	conn := socketConn{os.NewFile(uintptr(fd), c.addr)}
	if err := conn.SetDeadline(deadline); err != nil {
		conn.Close()
		return protocols.KindOther, err
	}
	if !c.setConn(conn) {
		return protocols.KindOther, net.ErrClosed
	}
	c.connecting = true
	return protocols.KindNone, nil
}

// socketConn is a TCP connection dialSocket opened, driven through the
// runtime's poller as an *os.File. Nothing asks for its addresses.
type socketConn struct{ *os.File }

func (socketConn) LocalAddr() net.Addr  { return nil }
func (socketConn) RemoteAddr() net.Addr { return nil }

// setConn makes conn the worker's connection, unless Close came first.
func (c *http1Client) setConn(conn net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close()
		return false
	}
	c.conn = conn
	c.reused = false
	c.rd.reset(conn)
	c.rawOK = c.raw.attach(conn, &c.rd)
	c.raw.rearm, c.rd.rearm, c.tls.rearm, c.under = nil, nil, nil, nil
	if c.dl.rearm == nil {
		c.dl.rearm = c.rearm
	}
	switch {
	case c.rawOK:
		c.rd.useRaw(c.raw.Conn())
		c.raw.rearm, c.rd.rearm = c.dl.rearm, c.dl.rearm
	case c.tlsOK:
		c.tls.rearm, c.under = c.dl.rearm, c.tls.Conn
	}
	return true
}

// drop closes the connection; it is never reused after an error.
func (c *http1Client) drop() {
	c.mu.Lock()
	conn := c.conn
	c.conn, c.under = nil, nil
	c.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
	}
	c.reused = false
	c.connecting = false
	c.rawOK, c.tlsOK = false, false
	c.raw.Detach()
	c.rd.reset(nil)
	c.rd.useRaw(nil)
}

// Close closes the connection. It may run while a Do abandoned by the
// engine is still blocked; that Do then fails and returns.
func (c *http1Client) Close() error {
	c.mu.Lock()
	c.closed = true
	conn := c.conn
	if c.under != nil {
		conn = c.under
	}
	c.mu.Unlock()
	c.unwatch()
	if conn != nil {
		return conn.Close()
	}
	return nil
}
