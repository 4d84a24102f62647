package http1

import (
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// loopUnsupported says why the event loop cannot serve target t, or ""
// when it can. The loop speaks plain HTTP/1.1 on raw sockets to one IP
// address and judges a response by its status and length: whatever needs
// more (TLS, a proxy, a name to resolve, a flow, the body's content) is
// the workers' job, through the lean client.
func loopUnsupported(t *scenarios.Target) string {
	h := t.HTTP
	switch {
	case h == nil:
		return "not an HTTP target"
	case !loopSupported:
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
	if u.Scheme != "http" {
		return "TLS runs on workers"
	}
	if newSocketAddr(u.Hostname(), protocols.Port(u)) == nil {
		return "the host is a name, which the workers' dialer resolves"
	}
	return ""
}

// NewLoop makes the event loop of target t, or returns nil and why not
// when the target needs the workers' clients (see loopUnsupported).
func NewLoop(t *scenarios.Target) (protocols.Loop, string) {
	if why := loopUnsupported(t); why != "" {
		return nil, why
	}
	h := t.HTTP
	u, _ := url.Parse(h.Requests[0].URL)
	l := &httpLoop{loopTarget: loopTarget{
		sock:    newSocketAddr(u.Hostname(), protocols.Port(u)),
		exp:     &h.Expect,
		maxBody: h.MaxBody,
		timeout: h.Timeout,
	}}
	addr := dialAddr(net.JoinHostPort(u.Hostname(), protocols.Port(u)))
	l.dialErrs.addr = addr
	l.ioErrs = dialErrors{addr: addr, onConn: true}
	if h.Expect.Length >= 0 {
		l.errLength = fmt.Errorf("body length is not %d bytes (expect.length)", h.Expect.Length)
	}
	for i := range h.Requests {
		r, err := serialize(&h.Requests[i], h.Keepalive)
		if err != nil {
			return nil, err.Error()
		}
		l.reqs = append(l.reqs, r)
	}
	l.nagle = oneSegment(l.reqs)
	l.errTimeout = fmt.Errorf("no complete response within %v (timeout)", h.Timeout)
	return l, ""
}

// verdict judges a complete response as the lean client's verdict does.
func (l *loopTarget) verdict(r *response) (protocols.ErrorKind, error) {
	switch {
	case !statusAccepted(l.exp.Status, r.status):
		return protocols.KindStatus, nil
	case l.exp.Length >= 0 && r.bodyLen != l.exp.Length:
		return protocols.KindLength, l.errLength
	}
	return protocols.KindNone, nil
}

// httpLoop's fields that do not depend on the system.
type loopTarget struct {
	sock       *socketAddr
	reqs       []http1Request
	exp        *scenarios.Expect
	maxBody    int64
	timeout    time.Duration
	nagle      bool
	errLength  error
	errTimeout error
	dialErrs   dialErrors
	ioErrs     dialErrors // of reads and writes on an open connection
}
