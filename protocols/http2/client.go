package http2

//lint:file-ignore SA1019 x/net/http2's client is deprecated in favour of net/http's ClientConn (Go 1.26), which dials by itself and keeps HTTP/2's error types unexported; this package dials each connection to time its handshake, count its bytes and check the h2c preface, and classifies resets by x/net's exported errors. On Go 1.27 x/net wraps net/http's ClientConn, so moving over is mechanical.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/http1"
)

// client is one worker of an HTTP/2 target: its requests, ready to send,
// and the connection of the pool they go over.
type client struct {
	pool    *Pool
	owned   bool // the pool is the client's own, closed with it
	timeout time.Duration
	reqs    []request
	check   *http1.ResponseCheck
}

// request is one entry of the target's mix, made once per worker.
type request struct {
	origin *origin
	slot   *slot
	req    *http.Request // without a context; Do gives it the request's
	body   []byte
	ctx    context.Context // the context req was last given
}

var _ protocols.Client = (*client)(nil)

func newClient(p *Pool, worker int, owned bool) (*client, error) {
	h := p.h
	c := &client{pool: p, owned: owned, timeout: h.Timeout, check: http1.NewResponseCheck(h)}
	for _, r := range h.Requests {
		o := p.originOf(r.URL)
		req, err := http.NewRequest(r.Method, r.URL, nil)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", p.target.Name, err)
		}
		for _, kv := range r.Headers {
			if strings.EqualFold(kv.Name, "Host") {
				req.Host = kv.Value
				continue
			}
			req.Header.Add(kv.Name, kv.Value)
		}
		if req.Header.Get("User-Agent") == "" {
			req.Header.Set("User-Agent", "loadgate")
		}
		req.ContentLength = int64(len(r.Body))
		c.reqs = append(c.reqs, request{origin: o, slot: o.slots[worker%len(o.slots)], req: req, body: r.Body})
	}
	return c, nil
}

// Do sends request i as one stream and reads its whole response.
func (c *client) Do(ctx context.Context, i int, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	r := &c.reqs[i]
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	cc, w, connect, err := c.pool.conn(ctx, r.origin, r.slot)
	out.Connect = connect
	if err != nil {
		out.Kind, out.Err = classifyDial(err, r.origin), err
		return
	}
	defer func() {
		// The connection's bytes since the last request that ended on it:
		// streams interleave, so a request is charged what the wire carried
		// while it ran; the totals are exact.
		out.BytesSent = w.sent.Swap(0)
		out.BytesReceived = w.received.Swap(0)
	}()
	if r.ctx != ctx {
		r.req, r.ctx = r.req.WithContext(ctx), ctx
	}
	if len(r.body) > 0 {
		// A fresh body per request: a stream may still be reading the last
		// one when the server answered before the whole body arrived.
		r.req.Body = &bodyReader{r: bytes.NewReader(r.body)}
	}
	resp, err := cc.RoundTrip(r.req)
	if err != nil {
		err = w.why(err)
		out.Kind, out.Err = classify(err, r.origin), err
		return
	}
	out.Status = resp.StatusCode
	out.Kind, out.Err = c.check.Check(resp.StatusCode, resp.Body, func(err error) protocols.ErrorKind {
		return classify(err, r.origin)
	})
	_ = resp.Body.Close()
}

// Close drops the worker's references; the pool's connections close with
// the phase, unless the client has a pool of its own.
func (c *client) Close() error {
	for i := range c.reqs {
		c.reqs[i].ctx, c.reqs[i].req = nil, c.reqs[i].req.WithContext(context.Background())
	}
	if c.owned {
		return c.pool.Close()
	}
	return nil
}

// bodyReader is a request body that net/http may close.
type bodyReader struct{ r io.Reader }

func (b *bodyReader) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *bodyReader) Close() error               { return nil }

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

// classify maps an error of a request to the error kinds of SPEC §3.
func classify(err error, o *origin) protocols.ErrorKind {
	var netErr net.Error
	var opErr *net.OpError
	var streamErr http2.StreamError
	var goAway http2.GoAwayError
	var connErr http2.ConnectionError
	switch {
	case errors.Is(err, o.errH1), errors.Is(err, o.errNoH2):
		return protocols.KindProtocol
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return protocols.KindTimeout
	case errors.As(err, &netErr) && netErr.Timeout():
		return protocols.KindTimeout
	case errors.As(err, &streamErr), errors.As(err, &goAway):
		return protocols.KindReset
	case errors.As(err, &connErr), errors.Is(err, http2.ErrFrameTooLarge):
		return protocols.KindProtocol
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return protocols.KindConnect
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return protocols.KindConnect
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return protocols.KindReset
	}
	// x/net/http2 keeps these unexported: a connection that went away
	// under the stream (a GOAWAY, a close).
	msg := err.Error()
	switch {
	case strings.Contains(msg, "GOAWAY"), strings.Contains(msg, "client conn is closed"),
		strings.Contains(msg, "client conn not usable"), strings.Contains(msg, "connection lost"):
		return protocols.KindReset
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"):
		return protocols.KindConnect
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "invalid"), strings.Contains(msg, "protocol error"):
		return protocols.KindProtocol
	}
	return protocols.KindOther
}
