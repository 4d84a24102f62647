package httpflow

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/scenarios"
)

// The seam between a flow and the lean HTTP/1.1 client's connections
// (protocols/http1): the flow client renders each step as the bytes that
// go on the wire, which a Wire sends as they are on the connection of the
// step's origin, reading the response through the step's Expectation.

// NewWireClient makes the client of one virtual user of flow target t,
// whose steps go over conns.
func NewWireClient(t *scenarios.Target, worker int, conns Wire) (protocols.Client, error) {
	return newFlowClient(t, worker, nil, conns)
}

// Wire is the HTTP/1.1 connections of one virtual user, one per origin
// its steps reach.
type Wire interface {
	// Route readies the connection to origin (scheme://host[:port], u
	// parsed) the first time a step reaches it, and says how the steps
	// to it go.
	Route(origin string, u *url.URL) (WireRoute, error)
	// Exchange sends r on connection r.Conn and reads its whole response
	// through r.Expect, filling out (status, kind, error, bytes, connect
	// time).
	Exchange(ctx context.Context, r *WireRequest, out *protocols.Outcome)
	// Close closes every connection of the user.
	Close() error
}

// WireRoute is how the steps to one origin go: on which connection of the
// Wire, and whether to a proxy that takes the request-target in absolute
// form, with the Proxy-Authorization it asks for ("" for none).
type WireRoute struct {
	Conn     int
	Absolute bool
	Auth     string
}

// WireRequest is one step rendered for a Wire. Its slices are the flow
// client's buffers, valid until the next step.
type WireRequest struct {
	Conn   int    // WireRoute.Conn of the step's origin
	Head   []byte // the request line and header fields, up to the blank line
	Body   []byte
	IsHead bool // a HEAD response has no body
	Close  bool // the request asks the server to close
	Expect *httpcheck.Expectation
	// ResponseHead, when non-nil, receives the response's header block, for
	// a step's header extractions and the cookie jar.
	ResponseHead *[]byte
}

// render writes step s as it goes on the wire into c.wreq, its head into
// c.wire; false when a placeholder's value made the request line or a
// header invalid.
func (c *flowClient) render(s *flowStep) bool {
	body := c.renderBody(s)
	w := append(c.wire[:0], s.method...)
	w = append(w, ' ')
	if s.absolute {
		w = append(w, s.origin...)
	}
	from := len(w)
	w = c.env.Render(w, &s.target)
	if bytes.ContainsAny(w[from:], " \r\n") {
		return false
	}
	if c.jar != nil {
		c.cookieURL, _ = url.Parse(s.origin + string(w[from:]))
	}
	w = append(w, " HTTP/1.1\r\n"...)
	if !s.ownHost {
		w = appendHeader(w, "Host", s.host)
	}
	for i := range s.headers {
		h := &s.headers[i]
		w = append(append(w, h.Name...), ": "...)
		at := len(w)
		w = c.env.Render(w, &h.Value)
		if bytes.ContainsAny(w[at:], "\r\n") {
			return false
		}
		w = append(w, "\r\n"...)
	}
	if !s.ownUA {
		w = append(w, "User-Agent: loadgate\r\n"...)
	}
	if s.auth != "" {
		w = appendHeader(w, "Proxy-Authorization", s.auth)
	}
	if c.jar != nil && c.cookieURL != nil {
		w = appendCookies(w, c.jar.Cookies(c.cookieURL))
	}
	if s.length || len(body) > 0 {
		w = appendContentLength(w, len(body))
	}
	if !c.h.Keepalive {
		w = append(w, "Connection: close\r\n"...)
	}
	w = append(w, "\r\n"...)
	c.wire = w
	c.wreq.Head, c.wreq.Body = w, body
	return true
}

// appendHeader appends the header field name: value.
func appendHeader(w []byte, name, value string) []byte {
	w = append(append(w, name...), ": "...)
	return append(append(w, value...), "\r\n"...)
}

// appendCookies appends the Cookie header of cs, none when cs is empty.
func appendCookies(w []byte, cs []*http.Cookie) []byte {
	if len(cs) == 0 {
		return w
	}
	w = append(w, "Cookie: "...)
	for i, ck := range cs {
		if i > 0 {
			w = append(w, "; "...)
		}
		w = append(append(append(w, ck.Name...), '='), ck.Value...)
	}
	return append(w, "\r\n"...)
}

// appendContentLength appends the Content-Length header of a body of n
// bytes.
func appendContentLength(b []byte, n int) []byte {
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "\r\n"...)
}
