package httpflow

import (
	"io"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// bodyHead keeps the first bytes of a flow step's response body, which
// the step's failure quotes ("unexpected status 401: got {…}"), while
// inner — the step's checks, the body its extractions keep, or nothing —
// reads the body. It copies at most protocols.ShownBytes of each body
// into a fixed array: a response costs no allocation for it.
type bodyHead struct {
	inner httpcheck.BodyReader // nil: the body is read and dropped
	src   httpcheck.BodySource
	head  [protocols.ShownBytes]byte
	n     int  // bytes of head in use
	more  bool // the body went on past head
}

// reset forgets the last body, before a step is sent again.
func (h *bodyHead) reset() { h.n, h.more = 0, false }

// Run reads the body from src, through inner when it is set.
func (h *bodyHead) Run(src httpcheck.BodySource) error {
	h.src = src
	defer func() { h.src = nil }()
	if h.inner != nil {
		return h.inner.Run(h)
	}
	for {
		if _, err := h.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// Next hands inner the next piece of the body, copying what head has
// room for.
func (h *bodyHead) Next() ([]byte, error) {
	b, err := h.src.Next()
	if err == nil && len(b) > 0 {
		k := copy(h.head[h.n:], b)
		h.n += k
		h.more = h.more || k < len(b)
	}
	return b, err
}

// got is the start of the body read, nil when none was.
func (h *bodyHead) got() []byte {
	if h.n == 0 {
		return nil
	}
	return h.head[:h.n]
}

// explain makes a failure of step s quote the start of the body it got:
// out.Err becomes the client's StepError, worded only when the engine
// describes it. A failure before any body, or one of a step that sent
// nothing, keeps its error. The engine names the step.
func (c *flowClient) explain(s *flowStep, out *protocols.Outcome) {
	got := s.head.got()
	switch {
	case out.Kind == protocols.KindNone || got == nil:
		return
	case out.Err == nil && out.Kind == protocols.KindStatus:
		out.Err = c.fail.FailStatus("", out.Status, got)
	case out.Err != nil:
		out.Err = c.fail.Fail("", out.Err, got)
	default:
		return
	}
	if s.head.more {
		c.fail.Truncated()
	}
}
