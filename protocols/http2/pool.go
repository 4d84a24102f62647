package http2

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

// Pool holds the HTTP/2 connections that the workers of one phase of a
// target share: Connections of them per origin the target's requests
// reach, each dialled when a worker first needs it and again after it
// closed (a GOAWAY, a reset, a server gone). It is safe for concurrent use.
type Pool struct {
	target  *scenarios.Target
	h       *scenarios.HTTPTarget
	dialer  net.Dialer
	origins []*origin
	// byOrigin is the origin of each scheme://host a flow's steps name.
	byOrigin map[string]*origin

	mu      sync.Mutex
	closed  bool
	retired []*conn // replaced connections, closed with the pool
}

// origin is one scheme://host of the target, with its connections.
type origin struct {
	addr       string // host:port to dial
	serverName string // for TLS
	tls        *tls.Config
	slots      []*slot
	// Made once: why a connection was refused, for Outcome.Err.
	errNoH2, errH1 error
}

// slot is one of an origin's connections. lock is a channel so that a
// worker waiting for another's dial gives up when its request's deadline
// passes.
type slot struct {
	lock chan struct{}
	cc   atomic.Pointer[conn]
}

var errPoolClosed = errors.New("http/2: the phase's connections are closed")

// NewPool makes the (not yet dialled) connections of HTTP/2 target t.
func NewPool(t *scenarios.Target) (*Pool, error) {
	h := t.HTTP
	if h == nil {
		return nil, fmt.Errorf("target %q has no http block", t.Name)
	}
	p := &Pool{target: t, h: h, dialer: net.Dialer{Timeout: h.Timeout}, byOrigin: map[string]*origin{}}
	conns := max(1, h.Connections)
	urls := make([]string, 0, len(h.Requests))
	for _, r := range h.Requests {
		urls = append(urls, r.URL)
	}
	if h.Flow != nil {
		var err error
		if urls, err = httpflow.StepOrigins(t); err != nil {
			return nil, err
		}
	}
	seen := map[string]*origin{}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("target %q: url %s: %w", t.Name, raw, err)
		}
		key := u.Scheme + "://" + u.Host
		if o := seen[key]; o != nil {
			p.byOrigin[raw] = o // a step names its origin as StepOrigins spelled it
			continue
		}
		o, err := p.newOrigin(u, conns)
		if err != nil {
			return nil, err
		}
		seen[key], p.byOrigin[raw] = o, o
		p.origins = append(p.origins, o)
	}
	return p, nil
}

func (p *Pool) newOrigin(u *url.URL, conns int) (*origin, error) {
	o := &origin{addr: net.JoinHostPort(u.Hostname(), protocols.Port(u)), serverName: u.Hostname()}
	switch u.Scheme {
	case "https":
		conf, err := protocols.TLSConfig(p.target.Name, &p.h.TLS)
		if err != nil {
			return nil, err
		}
		// Offering http/1.1 too lets a server without h2 say so by choosing
		// it, rather than by ending the handshake with an alert.
		conf.NextProtos = []string{"h2", "http/1.1"}
		conf.ServerName = o.serverName
		o.tls = conf
		o.errNoH2 = fmt.Errorf("%s does not speak HTTP/2: TLS negotiated no ALPN protocol, h2 was offered", o.addr)
		o.errH1 = fmt.Errorf("%s does not speak HTTP/2: TLS negotiated ALPN http/1.1, h2 was offered", o.addr)
	case "http":
		o.errH1 = fmt.Errorf("%s does not speak HTTP/2 with prior knowledge (h2c): it answered the preface with HTTP/1.x", o.addr)
		o.errNoH2 = fmt.Errorf("%s does not speak HTTP/2 with prior knowledge (h2c): its first frame is not SETTINGS", o.addr)
	default:
		return nil, fmt.Errorf("target %q: scheme %s is not http or https", p.target.Name, u.Scheme)
	}
	for range conns {
		o.slots = append(o.slots, &slot{lock: make(chan struct{}, 1)})
	}
	return o, nil
}

// originOf is the origin that request URL raw goes to.
func (p *Pool) originOf(raw string) *origin {
	u, _ := url.Parse(raw) // parsed without error by NewPool
	for _, o := range p.origins {
		if o.addr == net.JoinHostPort(u.Hostname(), protocols.Port(u)) {
			return o
		}
	}
	return p.origins[0]
}

// conn is slot s's connection, dialled if it has none or its last one
// can take no more streams; connect is the handshake's time when this
// call dialled.
func (p *Pool) conn(ctx context.Context, o *origin, s *slot) (cc *conn, connect time.Duration, err error) {
	if cc = s.cc.Load(); cc != nil && cc.usable() {
		return cc, 0, nil
	}
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	defer func() { <-s.lock }()
	// Another worker may have dialled while this one waited.
	if cc = s.cc.Load(); cc != nil && cc.usable() {
		return cc, 0, nil
	}
	start := time.Now()
	cc, err = p.dial(ctx, o)
	if err != nil {
		return nil, 0, err
	}
	connect = time.Since(start)
	if old := s.cc.Swap(cc); old != nil {
		p.retire(old)
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		_ = cc.close()
		return nil, 0, errPoolClosed
	}
	return cc, connect, nil
}

// dial opens one connection to o: TCP, TLS with ALPN h2 for https, then
// the HTTP/2 preface and the exchange of SETTINGS.
func (p *Pool) dial(ctx context.Context, o *origin) (*conn, error) {
	raw, err := p.dialer.DialContext(ctx, "tcp", o.addr)
	if err != nil {
		return nil, err
	}
	w := &wireConn{Conn: raw, origin: o, checked: o.tls != nil}
	var nc net.Conn = w
	if o.tls != nil {
		tc := tls.Client(w, o.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			if strings.Contains(err.Error(), "no application protocol") {
				return nil, fmt.Errorf("%w (%w)", o.errNoH2, err)
			}
			return nil, err
		}
		switch tc.ConnectionState().NegotiatedProtocol {
		case "h2":
		case "http/1.1":
			_ = raw.Close()
			return nil, o.errH1
		default:
			_ = raw.Close()
			return nil, o.errNoH2
		}
		nc = tc
	}
	deadline, _ := ctx.Deadline()
	c := newConn(nc, w, p.h.Timeout, p.h.Flow != nil)
	if err := c.handshake(deadline); err != nil {
		_ = raw.Close()
		return nil, err
	}
	return c, nil
}

func (p *Pool) retire(cc *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retired = append(p.retired, cc)
}

// Close closes every connection; requests still running on them fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	retired := p.retired
	p.retired = nil
	p.mu.Unlock()
	var errs []error
	for _, cc := range retired {
		errs = append(errs, cc.close())
	}
	for _, o := range p.origins {
		for _, s := range o.slots {
			if cc := s.cc.Swap(nil); cc != nil {
				errs = append(errs, cc.close())
			}
		}
	}
	return errors.Join(errs...)
}

// NewClient makes the client of worker of the pool's target: its requests
// go over connection worker mod `connections` of each origin.
func (p *Pool) NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	if p.h.Flow != nil {
		return httpflow.NewClient(t, worker, newStepTransport(p, worker, false))
	}
	return newClient(p, worker, false)
}

// NewClient makes the client of one worker of HTTP/2 target t, with
// connections of its own: the engine shares connections between workers
// through a Pool instead.
func NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	p, err := NewPool(t)
	if err != nil {
		return nil, err
	}
	if p.h.Flow != nil {
		return httpflow.NewClient(t, worker, newStepTransport(p, worker, true))
	}
	return newClient(p, worker, true)
}
