package httpcheck

import (
	"errors"
	"io"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// MaxHeaderBytes is the largest response header block, in bytes, that a
// client of an HTTP target accepts, over HTTP/1.1 as over HTTP/2: a larger
// one fails the request as "headers too large", a protocol error, before
// it can make the worker hold it.
const MaxHeaderBytes = 64 << 10

// MaxZeroReads is how many reads in a row that return nothing, and no
// error, a reader of a response tolerates before it fails with
// io.ErrNoProgress: a source that never ends nor sends must not hold the
// worker.
const MaxZeroReads = 100

// ErrBodyTooLarge fails a body longer than max_body (kind length). Its
// words are those the HTTP/1.1 client has always reported, whichever
// client reads the body.
var ErrBodyTooLarge = errors.New("http/1.1 response: body exceeds max_body")

// ResponseCheck applies an HTTP target's expect and max_body to responses
// whose body is an io.Reader (net/http's, an HTTP/2 stream's). It streams
// the body through one reused buffer, so a worker keeps a bounded part of
// any body and a check allocates nothing; it belongs to one worker.
type ResponseCheck struct {
	expect *Expectation
	limit  int64
	body   readerSource
}

// NewResponseCheck makes the checks of target h for one worker.
func NewResponseCheck(h *scenarios.HTTPTarget) *ResponseCheck {
	return NewCheck(NewExpectation(&h.Expect), h.MaxBody)
}

// NewCheck makes the checks of e, with bodies of up to maxBody bytes: a
// flow step's, whose expectation also keeps what the step extracts.
func NewCheck(e *Expectation, maxBody int64) *ResponseCheck {
	return &ResponseCheck{expect: e, limit: maxBody}
}

// Check reads body to its end and judges the response of status. An error
// reading the body is classified by classify, the transport's own.
func (c *ResponseCheck) Check(status int, body io.Reader, classify func(error) protocols.ErrorKind) (protocols.ErrorKind, error) {
	c.body.reset(body, c.limit)
	var err error
	switch {
	case c.expect.Body != nil:
		// The checks, or a flow step's reader: what keeps the body for
		// its extractions and its first bytes for a failure.
		err = c.expect.Body.Run(&c.body)
	default:
		for err == nil {
			_, err = c.body.Next()
		}
		if err == io.EOF {
			err = nil
		}
	}
	c.body.r = nil
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return protocols.KindLength, err
	case err != nil:
		return classify(err), err
	}
	return c.expect.Verdict(status, c.body.n)
}

// BodyBytes is how many bytes of body the last Check read.
func (c *ResponseCheck) BodyBytes() int64 { return c.body.n }

// readerSource hands out a body read from an io.Reader through one buffer,
// as a BodySource, failing once it exceeds max_body.
type readerSource struct {
	r     io.Reader
	buf   []byte
	n     int64 // bytes read
	limit int64 // max_body
	err   error // returned by r with data, reported next
}

// readerSourceBuf is the size of a readerSource's buffer.
const readerSourceBuf = 16 << 10

func (s *readerSource) reset(r io.Reader, limit int64) {
	s.r, s.n, s.limit, s.err = r, 0, limit, nil
	if s.buf == nil {
		s.buf = make([]byte, readerSourceBuf)
	}
}

// Next returns the next piece of the body, valid until the next call.
func (s *readerSource) Next() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	for range MaxZeroReads {
		// Reading one byte past max_body is enough to refuse the body.
		k, err := s.r.Read(s.buf[:min(int64(len(s.buf)), s.limit+1-s.n)])
		s.n += int64(k)
		if s.n > s.limit {
			return nil, ErrBodyTooLarge
		}
		if k > 0 {
			s.err = err
			return s.buf[:k], nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, io.ErrNoProgress
}
