package http1

import (
	"errors"
	"io"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// What other HTTP clients (HTTP/2) share with this package: the checks of
// expect, so that a response is judged the same whatever protocol carried
// it. (TLS settings are every protocol's: protocols.TLSConfig.)

// MaxHeaderBytes is the largest response header block, in bytes, that a
// client of an HTTP target accepts, over HTTP/1.1 as over HTTP/2: a larger
// one fails the request as "headers too large", a protocol error, before
// it can make the worker hold it.
const MaxHeaderBytes = http1MaxHeader

// ResponseCheck applies an HTTP target's expect and max_body to responses
// whose body is an io.Reader. It streams the body through one reused
// buffer, so a worker keeps a bounded part of any body and a check
// allocates nothing; it belongs to one worker.
type ResponseCheck struct {
	expect *expectation
	limit  int64
	body   readerSource
}

// ErrBodyTooLarge fails a body longer than max_body (kind length).
var ErrBodyTooLarge error = errBodyTooLarge

// NewResponseCheck makes the checks of target h for one worker.
func NewResponseCheck(h *scenarios.HTTPTarget) *ResponseCheck {
	return &ResponseCheck{expect: newExpectation(&h.Expect), limit: h.MaxBody}
}

// Check reads body to its end and judges the response of status. An error
// reading the body is classified by classify, the transport's own.
func (c *ResponseCheck) Check(status int, body io.Reader, classify func(error) protocols.ErrorKind) (protocols.ErrorKind, error) {
	c.body.reset(body, c.limit)
	var err error
	switch {
	case c.expect.body != nil:
		// The checks, or a flow step's reader: what keeps the body for
		// its extractions and its first bytes for a failure.
		err = c.expect.body.run(&c.body)
	default:
		for err == nil {
			_, err = c.body.next()
		}
		if err == io.EOF {
			err = nil
		}
	}
	c.body.r = nil
	switch {
	case errors.Is(err, errBodyTooLarge):
		return protocols.KindLength, err
	case err != nil:
		return classify(err), err
	}
	return c.expect.verdict(status, c.body.n)
}

// BodyBytes is how many bytes of body the last Check read.
func (c *ResponseCheck) BodyBytes() int64 { return c.body.n }
