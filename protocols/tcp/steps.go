package tcp

import (
	"bytes"
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// steps are a TCP target's steps made ready for sending, once per client:
// the worker client's and the event loop's.
type steps struct {
	codec     frameCodec
	onConnect []tcpOp
	iteration []tcpOp
}

func newSteps(t *scenarios.TCPTarget) *steps {
	p := &steps{codec: newFrameCodec(t)}
	p.onConnect = p.prepare(t.OnConnect, "on_connect ")
	p.iteration = p.prepare(t.Iteration, "")
	return p
}

// tcpOp is a step prepared for sending: a payload without placeholders is
// framed once, here, and then only copied.
type tcpOp struct {
	expect *scenarios.TCPExpect // nil for a send
	static []byte               // the whole message, when it never changes
	tpl    *scenarios.Template
	framed bool
	// label names the step in its failures: "step 2 (expect)".
	label string
	// errEquals and errContains say which check a reply failed, worded
	// once so that a failing check allocates nothing.
	errEquals, errContains error
	// runEnd (of a send) is where the sends from this one on end: the
	// next expect, or the end of the steps. They go out in one write,
	// run, when none of them changes (nil otherwise).
	runEnd int
	run    []byte
}

// prepare readies steps, whose failures name them with prefix.
func (p *steps) prepare(list []scenarios.TCPStep, prefix string) []tcpOp {
	ops := make([]tcpOp, len(list))
	for i := range list {
		s := &list[i]
		ops[i].label = fmt.Sprintf("%sstep %d (send)", prefix, i+1)
		switch s.Kind {
		case scenarios.StepExpect:
			ops[i].label = fmt.Sprintf("%sstep %d (expect)", prefix, i+1)
			ops[i].expect = &s.Expect
			if e := s.Expect.Equals; e != nil {
				ops[i].errEquals = fmt.Errorf("reply does not equal %s", protocols.Quote(e[:min(len(e), protocols.ShownBytes)], len(e) > protocols.ShownBytes))
			}
			if e := s.Expect.Contains; e != nil {
				ops[i].errContains = fmt.Errorf("reply does not contain %s", protocols.Quote(e[:min(len(e), protocols.ShownBytes)], len(e) > protocols.ShownBytes))
			}
			continue
		case scenarios.StepSend:
			ops[i].framed = true
		}
		ops[i].tpl = &s.Payload
		if s.Payload.Static() {
			ops[i].static = p.encode(nil, &ops[i], nil)
		}
	}
	for i := len(ops) - 1; i >= 0; i-- {
		switch {
		case ops[i].expect != nil:
		case i+1 < len(ops) && ops[i+1].expect == nil:
			ops[i].runEnd = ops[i+1].runEnd
			if ops[i].static != nil && ops[i+1].run != nil {
				ops[i].run = append(append([]byte(nil), ops[i].static...), ops[i+1].run...)
			}
		default:
			ops[i].runEnd, ops[i].run = i+1, ops[i].static
		}
	}
	return ops
}

// encode appends op's message to dst, rendered in env unless it never
// changes.
func (p *steps) encode(dst []byte, op *tcpOp, env *protocols.RenderEnv) []byte {
	if op.static != nil {
		return append(dst, op.static...)
	}
	if !op.framed {
		return env.Render(dst, op.tpl)
	}
	dst, start := p.codec.open(dst)
	dst = env.Render(dst, op.tpl)
	return p.codec.close(dst, start)
}

// mismatch is the check payload fails, or nil when it passes them all.
func (op *tcpOp) mismatch(payload []byte) error {
	e := op.expect
	if e.Equals != nil && !bytes.Equal(payload, e.Equals) {
		return op.errEquals
	}
	if e.Contains != nil && !bytes.Contains(payload, e.Contains) {
		return op.errContains
	}
	return nil
}
