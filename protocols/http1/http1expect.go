package http1

import (
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// expectation is the checks applied to a response, made once: a target's
// expect, or a flow step's.
type expectation struct {
	exp       *scenarios.Expect
	check     *bodyCheck // nil when there is no body check
	errLength error      // the body's length is not expect.length
	body      bodyReader // what reads the body: check, a bodyKeep, or nil to discard it
}

func newExpectation(exp *scenarios.Expect) *expectation {
	e := &expectation{exp: exp, check: newBodyCheck(exp.BodyContains, exp.BodyRegex)}
	if e.check != nil {
		e.body = e.check
	}
	if exp.Length >= 0 {
		e.errLength = fmt.Errorf("body length is not %d bytes (expect.length)", exp.Length)
	}
	return e
}

// verdict applies e to a complete response of status whose body, bodyLen
// bytes, has been read through e.check: the status first, then the length,
// then the body checks. A status failure needs no error: the status says
// it.
func (e *expectation) verdict(status int, bodyLen int64) (protocols.ErrorKind, error) {
	switch {
	case !statusAccepted(e.exp.Status, status):
		return protocols.KindStatus, nil
	case e.exp.Length >= 0 && bodyLen != e.exp.Length:
		return protocols.KindLength, e.errLength
	case e.check != nil && e.check.err() != nil:
		return protocols.KindCheck, e.check.err()
	}
	return protocols.KindNone, nil
}
