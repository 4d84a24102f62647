package http2

//lint:file-ignore SA1019 x/net/http2's client is deprecated in favour of net/http's ClientConn (Go 1.26), which dials by itself and keeps HTTP/2's error types unexported; this package dials each connection to time its handshake, count its bytes and check the h2c preface, and classifies resets by x/net's exported errors. On Go 1.27 x/net wraps net/http's ClientConn, so moving over is mechanical.

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

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/http1"
	"github.com/loadgate/loadgate/scenarios"
)

// Pool holds the HTTP/2 connections that the workers of one phase of a
// target share: Connections of them per origin the target's requests
// reach, each dialled when a worker first needs it and again after it
// closed (a GOAWAY, a reset, a server gone). It is safe for concurrent use.
type Pool struct {
	target  *scenarios.Target
	h       *scenarios.HTTPTarget
	tr      *http2.Transport
	dialer  net.Dialer
	origins []*origin

	mu      sync.Mutex
	closed  bool
	retired []*http2.ClientConn // replaced connections, closed with the pool
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
	cc   atomic.Pointer[http2.ClientConn]
	wire atomic.Pointer[wireConn]
}

var errPoolClosed = errors.New("http/2: the phase's connections are closed")

// NewPool makes the (not yet dialled) connections of HTTP/2 target t.
func NewPool(t *scenarios.Target) (*Pool, error) {
	h := t.HTTP
	if h == nil {
		return nil, fmt.Errorf("target %q has no http block", t.Name)
	}
	if h.Flow != nil {
		return nil, fmt.Errorf("target %q: a flow runs over HTTP/1.1 for now; http2: true is not supported with flow", t.Name)
	}
	p := &Pool{target: t, h: h, dialer: net.Dialer{Timeout: h.Timeout}}
	p.tr = &http2.Transport{
		AllowHTTP:          true,
		DisableCompression: true, // bodies are measured as the server sends them, as over HTTP/1.1
	}
	conns := max(1, h.Connections)
	seen := map[string]*origin{}
	for _, r := range h.Requests {
		u, err := url.Parse(r.URL)
		if err != nil {
			return nil, fmt.Errorf("target %q: url %s: %w", t.Name, r.URL, err)
		}
		key := u.Scheme + "://" + u.Host
		if seen[key] != nil {
			continue
		}
		o, err := p.newOrigin(u, conns)
		if err != nil {
			return nil, err
		}
		seen[key] = o
		p.origins = append(p.origins, o)
	}
	return p, nil
}

func (p *Pool) newOrigin(u *url.URL, conns int) (*origin, error) {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	o := &origin{addr: net.JoinHostPort(u.Hostname(), port), serverName: u.Hostname()}
	switch u.Scheme {
	case "https":
		conf, err := http1.TLSConfig(p.target.Name, &p.h.TLS)
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
		if o.addr == net.JoinHostPort(u.Hostname(), portOf(u)) {
			return o
		}
	}
	return p.origins[0]
}

func portOf(u *url.URL) string {
	if port := u.Port(); port != "" {
		return port
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// conn is slot s's connection, dialled if it has none or its last one
// closed; connect is the handshake's time when this call dialled.
func (p *Pool) conn(ctx context.Context, o *origin, s *slot) (cc *http2.ClientConn, w *wireConn, connect time.Duration, err error) {
	if cc = s.cc.Load(); cc != nil && usable(cc) {
		return cc, s.wire.Load(), 0, nil
	}
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, 0, ctx.Err()
	}
	defer func() { <-s.lock }()
	// Another worker may have dialled while this one waited.
	if cc = s.cc.Load(); cc != nil && usable(cc) {
		return cc, s.wire.Load(), 0, nil
	}
	start := time.Now()
	cc, w, err = p.dial(ctx, o)
	if err != nil {
		return nil, nil, 0, err
	}
	connect = time.Since(start)
	if old := s.cc.Swap(cc); old != nil {
		p.retire(old)
	}
	s.wire.Store(w)
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		_ = cc.Close()
		return nil, nil, 0, errPoolClosed
	}
	return cc, w, connect, nil
}

// usable says whether cc can carry a new stream: a connection that
// received a GOAWAY, or whose reading ended, is replaced.
func usable(cc *http2.ClientConn) bool {
	st := cc.State()
	return !st.Closed && !st.Closing
}

// dial opens one connection to o: TCP, TLS with ALPN h2 for https, then
// the HTTP/2 preface.
func (p *Pool) dial(ctx context.Context, o *origin) (*http2.ClientConn, *wireConn, error) {
	raw, err := p.dialer.DialContext(ctx, "tcp", o.addr)
	if err != nil {
		return nil, nil, err
	}
	w := &wireConn{Conn: raw, origin: o, checked: o.tls != nil}
	var c net.Conn = w
	if o.tls != nil {
		tc := tls.Client(w, o.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			if strings.Contains(err.Error(), "no application protocol") {
				return nil, nil, fmt.Errorf("%w (%w)", o.errNoH2, err)
			}
			return nil, nil, err
		}
		switch tc.ConnectionState().NegotiatedProtocol {
		case "h2":
		case "http/1.1":
			_ = raw.Close()
			return nil, nil, o.errH1
		default:
			_ = raw.Close()
			return nil, nil, o.errNoH2
		}
		c = tc
	}
	cc, err := p.tr.NewClientConn(c)
	if err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	return cc, w, nil
}

func (p *Pool) retire(cc *http2.ClientConn) {
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
		errs = append(errs, cc.Close())
	}
	for _, o := range p.origins {
		for _, s := range o.slots {
			if cc := s.cc.Swap(nil); cc != nil {
				errs = append(errs, cc.Close())
			}
		}
	}
	return errors.Join(errs...)
}

// NewClient makes the client of worker of the pool's target: its requests
// go over connection worker mod `connections` of each origin.
func (p *Pool) NewClient(_ *scenarios.Target, worker int) (protocols.Client, error) {
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
	return newClient(p, worker, true)
}
