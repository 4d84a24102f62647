package httpcheck

import (
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// Expectation is the checks applied to a response, made once: a target's
// expect, or a flow step's.
type Expectation struct {
	exp       *scenarios.Expect
	errLength error // the body's length is not expect.length
	// Check is the body checks, nil when there is none.
	Check *BodyCheck
	// Body is what reads the body: Check, or a flow step's reader that
	// also keeps the body or its first bytes; nil to discard it.
	Body BodyReader
}

// NewExpectation makes the checks of exp.
func NewExpectation(exp *scenarios.Expect) *Expectation {
	e := &Expectation{exp: exp, Check: newBodyCheck(exp.BodyContains, exp.BodyRegex)}
	if e.Check != nil {
		e.Body = e.Check
	}
	if exp.Length >= 0 {
		e.errLength = fmt.Errorf("body length is not %d bytes (expect.length)", exp.Length)
	}
	return e
}

// Verdict applies e to a complete response of status whose body, bodyLen
// bytes, has been read through e.Body: the status first, then the length,
// then the body checks. A status failure needs no error: the status says
// it.
func (e *Expectation) Verdict(status int, bodyLen int64) (protocols.ErrorKind, error) {
	switch {
	case !statusAccepted(e.exp.Status, status):
		return protocols.KindStatus, nil
	case e.exp.Length >= 0 && bodyLen != e.exp.Length:
		return protocols.KindLength, e.errLength
	case e.Check != nil && e.Check.Err() != nil:
		return protocols.KindCheck, e.Check.Err()
	}
	return protocols.KindNone, nil
}

// statusAccepted reports whether code is one of accepted, or, when the
// scenario lists none, a success or a redirect (SPEC §3).
func statusAccepted(accepted []int, code int) bool {
	if len(accepted) == 0 {
		return code >= 200 && code < 400
	}
	for _, a := range accepted {
		if a == code {
			return true
		}
	}
	return false
}
