package http2

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// client is one worker of an HTTP/2 target: its requests, encoded once,
// and the one stream it has in flight at a time.
type client struct {
	pool    *Pool
	owned   bool // the pool is the client's own, closed with it
	timeout time.Duration
	reqs    []request
	check   *httpcheck.ResponseCheck
	st      *stream
}

// request is one entry of the target's mix, made once per worker.
type request struct {
	origin   *origin
	slot     *slot
	block    []byte // the HPACK header block
	body     []byte
	classify func(error) protocols.ErrorKind
	keepHead bool // the response's header fields are kept (a flow's step)
}

var _ protocols.Client = (*client)(nil)

func newClient(p *Pool, worker int, owned bool) (*client, error) {
	h := p.h
	c := &client{pool: p, owned: owned, timeout: h.Timeout, check: httpcheck.NewResponseCheck(h), st: newStream()}
	for i := range h.Requests {
		r := &h.Requests[i]
		u, err := url.Parse(r.URL)
		if err != nil {
			return nil, fmt.Errorf("target %q: url %s: %w", p.target.Name, r.URL, err)
		}
		o := p.originOf(r.URL)
		c.reqs = append(c.reqs, request{origin: o, slot: o.slots[worker%len(o.slots)],
			block: headerBlock(u, r), body: r.Body,
			classify: func(err error) protocols.ErrorKind { return classify(err, o) }})
	}
	return c, nil
}

// Do sends request i as one stream and reads its whole response.
func (c *client) Do(ctx context.Context, i int, out *protocols.Outcome) {
	roundTrip(ctx, c.pool, c.st, c.timeout, &c.reqs[i], c.check, nil, out)
}

// roundTrip sends r as one stream s and reads its whole response through
// check; head, when not nil, receives the response's header fields.
func roundTrip(ctx context.Context, p *Pool, s *stream, timeout time.Duration, r *request,
	check *httpcheck.ResponseCheck, head *[]byte, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	s.begin(ctx, timeout)
	s.keepHead = head != nil
	defer s.end()
	var cn *conn
	for attempt := 0; ; attempt++ {
		var err error
		cn = r.slot.cc.Load()
		if cn == nil || !cn.usable() {
			var took time.Duration
			cn, took, err = connect(ctx, p, timeout, r)
			out.Connect += took
			if err != nil {
				out.Kind, out.Err = classifyDial(err, r.origin), err
				return
			}
		}
		err = cn.open(s, r)
		if err == nil {
			break
		}
		if err != errRetry || attempt > 0 {
			// The connection's bytes: streams interleave, so a request is
			// charged what the wire carried since the last request that
			// ended on it; the totals are exact.
			out.BytesSent, out.BytesReceived = cn.wire.sent.Swap(0), cn.wire.received.Swap(0)
			out.Kind, out.Err = classify(err, r.origin), err
			return
		}
	}
	status, err := s.awaitHeaders()
	if err == nil {
		out.Status = status
		if head != nil {
			*head = s.takeHead(*head)
		}
		out.Kind, out.Err = check.Check(status, s, r.classify)
	} else {
		out.Kind, out.Err = classify(err, r.origin), err
	}
	cn.release(s)
	out.BytesSent, out.BytesReceived = cn.wire.sent.Swap(0), cn.wire.received.Swap(0)
}

// connect is the connection of r's slot, dialled within the request's
// timeout.
func connect(ctx context.Context, p *Pool, timeout time.Duration, r *request) (*conn, time.Duration, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return p.conn(ctx, r.origin, r.slot)
}

// Close drops the worker's references; the pool's connections close with
// the phase, unless the client has a pool of its own.
func (c *client) Close() error {
	if c.owned {
		return c.pool.Close()
	}
	return nil
}

// wireConn counts a connection's bytes, and checks that a cleartext
// server answers the h2c preface with HTTP/2: its first frame must be
// SETTINGS. A server speaking HTTP/1.x would otherwise be read as a frame
// of some megabytes, and fail with a message about frame sizes.
type wireConn struct {
	net.Conn
	origin         *origin
	sent, received atomic.Int64
	checked        bool // read by the connection's one reading goroutine
	head           int  // bytes of the first frame header seen
	// refused is the origin's error saying why the server is not speaking
	// HTTP/2, once the first bytes it sent showed it: x/net reports such a
	// connection as one that "could not be established".
	refused atomic.Pointer[error]
}

// why is the error that explains err, a request's failure on w.
func (w *wireConn) why(err error) error {
	if r := w.refused.Load(); r != nil {
		return *r
	}
	return err
}

// settingsFrame is the type of the SETTINGS frame, the fourth byte of its
// header.
const settingsFrame = 0x4

func (w *wireConn) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.received.Add(int64(n))
	if !w.checked && n > 0 {
		for _, b := range p[:n] {
			switch {
			case w.head == 0 && b == 'H':
				w.refused.Store(&w.origin.errH1)
				return 0, w.origin.errH1
			case w.head == 3 && b != settingsFrame:
				w.refused.Store(&w.origin.errNoH2)
				return 0, w.origin.errNoH2
			}
			w.head++
			if w.head == 4 {
				w.checked = true
				break
			}
		}
	}
	return n, err
}

func (w *wireConn) Write(p []byte) (int, error) {
	n, err := w.Conn.Write(p)
	w.sent.Add(int64(n))
	return n, err
}

// classifyDial maps an error opening a connection to its kind: a refused
// protocol is protocol, a deadline timeout, anything else connect.
func classifyDial(err error, o *origin) protocols.ErrorKind {
	switch k := classify(err, o); k {
	case protocols.KindProtocol, protocols.KindTimeout:
		return k
	}
	return protocols.KindConnect
}

// classify maps an error of a request to the error kinds of SPEC §3:
// first what HTTP/2 says (a server not speaking it, a malformed or refused
// stream, a GOAWAY), then the network's errors as protocols.NetErrorKind
// says, then what x/net reports only in words.
func classify(err error, o *origin) protocols.ErrorKind {
	switch {
	case errors.Is(err, o.errH1), errors.Is(err, o.errNoH2), errors.Is(err, errNoStatus), errors.Is(err, errEndNoHead),
		errors.Is(err, errHeadersTooLarge), errors.Is(err, errConnHeadersTooLarge):
		return protocols.KindProtocol
	case errors.Is(err, errRetry):
		return protocols.KindReset
	case protocols.IsTimeout(err):
		// Before the stream's errors, which may carry a deadline's.
		return protocols.KindTimeout
	}
	if _, ok := errors.AsType[http2.StreamError](err); ok {
		return protocols.KindReset
	}
	if _, ok := errors.AsType[*goAwayError](err); ok {
		return protocols.KindReset
	}
	if _, ok := errors.AsType[http2.ConnectionError](err); ok || errors.Is(err, http2.ErrFrameTooLarge) {
		return protocols.KindProtocol
	}
	if k := protocols.NetErrorKind(err); k != protocols.KindNone {
		return k
	}
	if errors.Is(err, net.ErrClosed) {
		// This end closed the connection under the stream: NetErrorKind
		// leaves that to each protocol, and HTTP/2 counts it a reset.
		return protocols.KindReset
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"):
		// A TLS alert's type is unexported: only its words say it.
		return protocols.KindConnect
	case strings.Contains(msg, "connection error"), strings.Contains(msg, "protocol error"):
		// The framer's own errors of a malformed frame are unexported.
		return protocols.KindProtocol
	}
	return protocols.KindOther
}
