package httpflow

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/scenarios"
)

// The seam between a flow and a transport that frames requests itself:
// the flow client renders each step into a
// StepRequest, which a StepTransport (HTTP/2's, on the case's shared
// connections) sends, judging the response with the step's ResponseCheck.
// Rendering, extraction, data feeds and cookies stay here, the same
// whatever carries the step.

// StepTransport sends the rendered steps of one virtual user.
type StepTransport interface {
	// Exchange sends req and reads its whole response through req.Check,
	// filling out (status, kind, error, bytes, connect time).
	Exchange(ctx context.Context, req *StepRequest, out *protocols.Outcome)
	// Close releases what the user holds of the transport.
	Close() error
}

// StepRequest is one step rendered, with what its response must be
// judged by. Its slices are the flow client's buffers, valid until the
// next step.
type StepRequest struct {
	Origin    string // scheme://host[:port], one of StepOrigins' results
	Method    string
	Authority string // the Host, the step's own header's when it writes one
	Path      []byte
	Headers   []StepHeader // lower-case names, without connection-specific ones
	Body      []byte
	// Head, when non-nil, receives the response's header block as a
	// status line then "name: value\r\n" lines: a step's header
	// extractions and the cookie jar read it.
	Head  *[]byte
	Check *httpcheck.ResponseCheck
}

// StepHeader is one header field of a StepRequest.
type StepHeader struct {
	Name  string
	Value []byte
}

// NewClient makes the client of one virtual user of flow target t, whose
// steps tr sends.
func NewClient(t *scenarios.Target, worker int, tr StepTransport) (protocols.Client, error) {
	return newFlowClient(t, worker, tr, nil)
}

// StepOrigins lists the origins (scheme://host[:port]) the steps of flow
// target t reach, in order of first use.
func StepOrigins(t *scenarios.Target) ([]string, error) {
	if t.HTTP == nil || t.HTTP.Flow == nil {
		return nil, fmt.Errorf("target %q has no flow", t.Name)
	}
	var list []string
	seen := map[string]bool{}
	for _, steps := range [][]scenarios.Step{t.HTTP.Flow.Setup, t.HTTP.Flow.Steps} {
		for i := range steps {
			o, _, err := splitOrigin(steps[i].URL)
			if err != nil {
				return nil, fmt.Errorf("target %q: step %q: %w", t.Name, steps[i].Name, err)
			}
			if !seen[o] {
				seen[o] = true
				list = append(list, o)
			}
		}
	}
	return list, nil
}

// compileStep readies what a transport other than HTTP/1.1 needs of step
// fs: lower-case header names, and the checks of its response.
func (c *flowClient) compileStep(fs *flowStep) {
	kept := fs.headers[:0:0]
	for _, h := range fs.headers {
		name := strings.ToLower(h.Name)
		switch name {
		case "connection", "keep-alive", "proxy-connection", "upgrade":
			// Connection-specific: HTTP/2 forbids them (RFC 9113 §8.2.2).
			continue
		}
		h.Name = name
		kept = append(kept, h)
	}
	fs.headers = kept
	fs.check = httpcheck.NewCheck(fs.expect, c.h.MaxBody)
}

// sendStep renders step s into c.sreq and has the transport send it.
func (c *flowClient) sendStep(ctx context.Context, s *flowStep, out *protocols.Outcome) bool {
	if !c.renderStep(s) {
		*out = protocols.Outcome{Kind: protocols.KindOther, Err: ErrUnsafeValue}
		return false
	}
	c.tr.Exchange(ctx, &c.sreq, out)
	return out.Kind == protocols.KindNone
}

// renderStep renders step s into c.sreq, its values into c.wire; false
// when a placeholder's value would make the request invalid.
func (c *flowClient) renderStep(s *flowStep) bool {
	body := c.renderBody(s)
	w := c.env.Render(c.wire[:0], &s.target)
	if bytes.ContainsAny(w, " \r\n") {
		return false
	}
	pathEnd := len(w)
	if c.jar != nil {
		c.cookieURL, _ = url.Parse(s.origin + string(w))
	}
	// Values are rendered one after the other into w, which may move as
	// it grows: the fields take their slices once it is complete.
	c.spans = c.spans[:0]
	authority := -1
	for i := range s.headers {
		h := &s.headers[i]
		at := len(w)
		w = c.env.Render(w, &h.Value)
		if bytes.ContainsAny(w[at:], "\r\n") {
			return false
		}
		if h.Name == "host" {
			authority = len(c.spans)
		}
		c.spans = append(c.spans, span{name: h.Name, from: at, to: len(w)})
	}
	if !s.ownUA {
		c.spans = append(c.spans, span{name: "user-agent", lit: agentValue})
	}
	if c.jar != nil && c.cookieURL != nil {
		at := len(w)
		for i, ck := range c.jar.Cookies(c.cookieURL) {
			if i > 0 {
				w = append(w, "; "...)
			}
			w = append(append(append(w, ck.Name...), '='), ck.Value...)
		}
		if len(w) > at {
			c.spans = append(c.spans, span{name: "cookie", from: at, to: len(w)})
		}
	}
	if s.length || len(body) > 0 {
		at := len(w)
		w = strconv.AppendInt(w, int64(len(body)), 10)
		c.spans = append(c.spans, span{name: "content-length", from: at, to: len(w)})
	}
	c.wire = w
	r := &c.sreq
	*r = StepRequest{Origin: s.origin, Method: s.method, Authority: s.host, Path: w[:pathEnd],
		Headers: r.Headers[:0], Body: body, Check: s.check}
	for i, sp := range c.spans {
		v := w[sp.from:sp.to]
		if sp.lit != nil {
			v = []byte(sp.lit)
		}
		if i == authority {
			r.Authority = unsafeString(v)
			continue
		}
		r.Headers = append(r.Headers, StepHeader{Name: sp.name, Value: v})
	}
	if s.keepHead {
		r.Head = &c.head
	}
	return true
}

// span is where a rendered header value lies in the flow client's buffer,
// or a literal value.
type span struct {
	name     string
	lit      []byte
	from, to int
}

var agentValue = []byte("loadgate")
