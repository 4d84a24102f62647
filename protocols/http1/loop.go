package http1

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/protocols/sockets"
	"github.com/loadgate/loadgate/scenarios"
)

// loopUnsupported says why the event loop cannot serve target t, or ""
// when it can. The loop speaks HTTP/1.1, plain or over kept-alive TLS, on
// raw sockets to the machine's own addresses (see loopAddrs) and judges a
// response by its status and length: whatever needs more (a proxy, a flow,
// the body's content) is the workers' job, through the lean client. So is
// a TLS connection per request: its handshake, off the loop (see
// loopTLS), would cost each request a goroutine and a hand-off.
func loopUnsupported(t *scenarios.Target) string {
	h := t.HTTP
	switch {
	case h == nil:
		return "not an HTTP target"
	case !evloop.Supported:
		return "no event loop on this system"
	case h.Flow != nil:
		return "a flow runs on workers"
	case h.Expect.BodyContains != "" || h.Expect.BodyRegex != nil:
		return "body checks read the body on workers"
	}
	if why := http1Unsupported(h); why != "" {
		return why
	}
	u, err := url.Parse(h.Requests[0].URL)
	if err != nil {
		return err.Error()
	}
	if u.Scheme == "https" && !h.Keepalive {
		return "a TLS connection per request runs on workers"
	}
	return ""
}

// loopAddrs is where the loop connects for u (see sockets.Local).
func loopAddrs(u *url.URL, lookup sockets.LookupFunc) ([]*sockets.Addr, string) {
	return sockets.Local(u.Hostname(), protocols.Port(u), lookup)
}

// NewLoop makes the event loop of target t, or returns nil and why not
// when the target needs the workers' clients (see loopUnsupported).
func NewLoop(t *scenarios.Target) (protocols.Loop, string) {
	if why := loopUnsupported(t); why != "" {
		return nil, why
	}
	h := t.HTTP
	u, _ := url.Parse(h.Requests[0].URL)
	socks, why := loopAddrs(u, net.DefaultResolver.LookupNetIP)
	if socks == nil {
		return nil, why
	}
	var conf *tls.Config
	if u.Scheme == "https" {
		var err error
		if conf, err = protocols.TLSConfig(t.Name, &h.TLS); err != nil {
			return nil, err.Error()
		}
		conf.ServerName = u.Hostname()
		conf.NextProtos = []string{"http/1.1"}
	}
	return loopTo(h, conf, net.JoinHostPort(u.Hostname(), protocols.Port(u)), socks)
}

// loopTo makes the loop of target h, whose connections go to socks, the
// addresses of hostport, over TLS with conf unless it is nil.
func loopTo(h *scenarios.HTTPTarget, conf *tls.Config, hostport string, socks []*sockets.Addr) (protocols.Loop, string) {
	src := sockets.NewSources(h.LocalIPs, 0)
	addr := sockets.DialAddr(hostport)
	lt := loopTarget{
		expect:  httpcheck.NewExpectation(&h.Expect),
		maxBody: h.MaxBody,
		ioErrs:  sockets.DialErrors{Addr: addr, OnConn: true},
		tlsConf: conf,
	}
	for i := range h.Requests {
		r, err := serialize(&h.Requests[i], h.Keepalive)
		if err != nil {
			return nil, err.Error()
		}
		lt.reqs = append(lt.reqs, r)
	}
	return newHTTPLoop(evloop.Config{
		Addrs:      socks,
		Sources:    src,
		Nagle:      oneSegment(lt.reqs),
		Timeout:    h.Timeout,
		ErrTimeout: fmt.Errorf("no complete response within %v (timeout)", h.Timeout),
		DialErrs:   &sockets.DialErrors{Addr: addr, Spread: src != nil},
	}, lt), ""
}

// loopTarget is what the event loop's HTTP needs of the target.
type loopTarget struct {
	reqs    []http1Request
	expect  *httpcheck.Expectation
	maxBody int64
	ioErrs  sockets.DialErrors // of reads and writes on an open connection
	tlsConf *tls.Config        // nil for http://
}
