package scenarios

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxMaxFrame bounds max_frame: a worker's read buffer may grow to it.
const maxMaxFrame = 1 << 30

// tcpTarget carries what the checks of a TCP target's steps need.
type tcpTarget struct {
	*TCPTarget
	framingOK bool // the framing resolved; checks against it are meaningful
}

// tcp resolves a `tcp:` block for one matrix combination.
func (r *resolver) tcp(t *rawTCP) *TCPTarget {
	out := &TCPTarget{Connection: Persistent, Timeout: defaultTimeout, MaxFrame: defaultMaxFrame}
	if t.address == nil {
		r.d.errorf(t.node, "tcp: missing required field %q", "address")
	} else {
		out.Address = r.address(t.address, "address")
	}
	if t.connection != nil {
		out.Connection = r.connection(t.connection, out.Connection)
	}
	if t.timeout != nil {
		out.Timeout = r.timeout(t.timeout, out.Timeout)
	}
	maxFrameOK := true
	if t.maxFrame != nil {
		v, ok := r.size(t.maxFrame, "max_frame")
		switch {
		case !ok:
			maxFrameOK = false
		case v <= 0:
			r.d.errorf(t.maxFrame, "max_frame: must be greater than 0")
			maxFrameOK = false
		case v > maxMaxFrame:
			r.d.errorf(t.maxFrame, "max_frame: must be at most 1GiB, got %d bytes", v)
			maxFrameOK = false
		default:
			out.MaxFrame = v
		}
	}
	tt := tcpTarget{TCPTarget: out, framingOK: maxFrameOK}
	if t.framing != nil {
		var ok bool
		out.Framing, ok = r.framing(t.framing, out.MaxFrame)
		tt.framingOK = tt.framingOK && ok
	}
	out.OnConnect = r.steps(t.onConnect, tt)
	switch {
	case t.iterationKey == nil:
		r.d.errorf(t.node, "tcp: missing required field %q", "iteration")
	case len(t.iteration) == 0:
		r.d.errorf(t.iterationKey, "iteration: needs at least one step")
	}
	out.Iteration = r.steps(t.iteration, tt)
	return out
}

// framing resolves `framing:`; ok is false when it is invalid, so that
// steps are not also checked against a framing the user did not mean.
func (r *resolver) framing(f *rawFraming, maxFrame int64) (Framing, bool) {
	switch {
	case f.lengthPrefixed != nil:
		return r.lengthPrefixed(f.lengthPrefixed)
	case f.line != nil:
		s, ok := r.text(f.line)
		if ok && s == "" {
			r.d.errorf(f.line, "line: the delimiter must not be empty")
			ok = false
		}
		return Framing{Kind: FramingLine, Delimiter: []byte(s)}, ok
	case f.fixed != nil:
		v, ok := r.intIn(f.fixed, "fixed", 1, maxMaxFrame)
		if ok && v > maxFrame {
			r.d.errorf(f.fixed, "fixed: %d bytes is more than max_frame (%d)", v, maxFrame)
			ok = false
		}
		return Framing{Kind: FramingFixed, Size: int(v)}, ok
	case len(f.kinds) > 0:
		return Framing{}, false // a mistyped value, reported when decoding
	}
	return Framing{Kind: FramingNone}, true
}

func (r *resolver) lengthPrefixed(lp *rawLengthPrefixed) (Framing, bool) {
	out := Framing{Kind: FramingLengthPrefixed}
	ok := !lp.dropped
	little := false
	if lp.littleEndian != nil {
		var good bool
		little, good = r.bool(lp.littleEndian, "little_endian")
		ok = ok && good
	}
	if lp.adjust != nil {
		v, good := r.intIn(lp.adjust, "adjust", -maxMaxFrame, maxMaxFrame)
		out.Adjust = v
		ok = ok && good
	}
	if lp.fieldsKey == nil {
		r.d.errorf(lp.node, "length_prefixed: missing required field %q", "fields")
		return out, false
	}
	var length *yaml.Node
	for _, f := range lp.fields {
		ff := FrameField{Size: f.size, LittleEndian: little}
		if f.explicit {
			ff.LittleEndian = f.little
		}
		s, good := r.text(f.val)
		switch {
		case !good:
			ok = false
			continue
		case s == "length" && length != nil:
			r.d.errorf(f.val, "fields: a second length field (the first is at line %d, column %d); a header has exactly one", length.Line, length.Column)
			ok = false
			continue
		case s == "length":
			length = f.val
			ff.Length = true
		default:
			v, err := strconv.ParseUint(s, 0, 64)
			limit := fieldMax(f.size)
			switch {
			case err != nil && !strings.HasPrefix(s, "-"):
				r.d.errorf(f.val, "%s: expected a constant or length, got %q", f.key.Value, s)
				ok = false
				continue
			case err != nil || v > limit:
				r.d.errorf(f.val, "%s: %s is out of range (0 to %d)", f.key.Value, s, limit)
				ok = false
				continue
			}
			ff.Value = v
		}
		out.Fields = append(out.Fields, ff)
	}
	if length == nil && ok {
		r.d.errorf(lp.fieldsKey, "fields: needs one {uN: length} field to carry the payload length")
		ok = false
	}
	return out, ok
}

// fieldMax is the largest value a header field of size bytes holds.
func fieldMax(size int) uint64 {
	if size >= 8 {
		return math.MaxUint64
	}
	return 1<<(8*size) - 1
}

// steps resolves on_connect or iteration.
func (r *resolver) steps(list []*rawStep, t tcpTarget) []TCPStep {
	var out []TCPStep
	for _, s := range list {
		if !s.ok {
			continue
		}
		step := TCPStep{Pos: r.d.pos(s.node)}
		switch {
		case s.send != nil:
			step.Kind = StepSend
			tpl, ok := r.template(s.send, "send")
			if ok && t.framingOK {
				r.fits(s.send, tpl, &t.Framing)
			}
			step.Payload = tpl
		case s.sendRaw != nil:
			step.Kind = StepSendRaw
			tpl, ok := r.template(s.sendRaw, "send_raw")
			if ok && tpl.MaxLen() == 0 {
				r.d.errorf(s.sendRaw, "send_raw: the payload is empty")
			}
			step.Payload = tpl
		case s.sendHex != nil:
			step.Kind = StepSendRaw
			step.Payload = r.hexPayload(s.sendHex)
		case s.expect != nil:
			step.Kind = StepExpect
			step.Expect = r.tcpExpect(s.expect, t)
		default:
			continue // the action's value was mistyped, and reported
		}
		out = append(out, step)
	}
	return out
}

// fits checks at load time that every payload the template can render
// fits the framing, so that no send can fail for that reason at run time.
func (r *resolver) fits(n *yaml.Node, t Template, f *Framing) {
	switch f.Kind {
	case FramingFixed:
		if m := t.MaxLen(); m > f.Size {
			r.d.errorf(n, "send: the payload can be %d bytes long, more than the fixed frame size (%d)", m, f.Size)
		}
	case FramingLengthPrefixed:
		size := 0
		for _, fl := range f.Fields {
			if fl.Length {
				size = fl.Size
			}
		}
		if hi := int64(t.MaxLen()) - f.Adjust; hi > 0 && uint64(hi) > fieldMax(size) {
			r.d.errorf(n, "send: the payload can be %d bytes long, too long for a %d-byte length field", t.MaxLen(), size)
		}
		if lo := int64(t.MinLen()) - f.Adjust; lo < 0 {
			r.d.errorf(n, "send: the payload can be %d bytes short, which with adjust %d gives a negative length", t.MinLen(), f.Adjust)
		}
	}
}

// tcpExpect resolves an expect step and checks it against the framing:
// with a framing it reads one frame; with none it needs a way to know when
// the reply is complete.
func (r *resolver) tcpExpect(e *rawTCPExpect, t tcpTarget) TCPExpect {
	var out TCPExpect
	frame, frameOK := false, false
	if e.frame != nil {
		frame, frameOK = r.bool(e.frame, "frame")
	}
	if e.contains != nil {
		if s, ok := r.text(e.contains); ok && s != "" {
			out.Contains = []byte(s)
		}
	}
	if e.equals != nil {
		if s, ok := r.text(e.equals); ok {
			out.Equals = []byte(s)
		}
	}
	if e.bytes != nil {
		out.Bytes, _ = r.intIn(e.bytes, "bytes", 1, maxMaxFrame)
	}
	if !t.framingOK {
		return out
	}
	none := t.Framing.Kind == FramingNone
	// One complaint about how the reply is delimited is enough: the
	// checks further down would only restate it.
	switch {
	case frameOK && frame && e.bytes != nil:
		r.d.errorf(later(e.frame, e.bytes), "expect: frame and bytes exclude each other: frame reads one frame, bytes a number of raw bytes (with framing: none)")
		return out
	case frameOK && !frame:
		r.d.errorf(e.frame, "frame: false would read nothing; write frame: true, or leave the step out")
		return out
	case frameOK && none:
		r.d.errorf(e.frame, "frame: true needs a framing; with framing: none, say with bytes, contains or equals when the reply is complete")
		return out
	case !none && e.bytes != nil:
		r.d.errorf(e.bytes, "bytes: only with framing: none; with %s framing, expect reads one whole frame", t.Framing.Kind)
		return out
	}
	mf := t.MaxFrame
	switch {
	case out.Bytes > mf:
		r.d.errorf(e.bytes, "bytes: %d is more than max_frame (%d)", out.Bytes, mf)
	case int64(len(out.Equals)) > mf:
		r.d.errorf(e.equals, "equals: %d bytes is more than max_frame (%d), so no reply can match", len(out.Equals), mf)
	case int64(len(out.Contains)) > mf:
		r.d.errorf(e.contains, "contains: %d bytes is more than max_frame (%d), so no reply can match", len(out.Contains), mf)
	case t.Framing.Kind == FramingFixed && out.Equals != nil && len(out.Equals) != t.Framing.Size:
		r.d.errorf(e.equals, "equals: %d bytes can never equal a fixed frame of %d", len(out.Equals), t.Framing.Size)
	}
	if !none {
		return out
	}
	switch {
	case out.Bytes > 0 && out.Equals != nil && int64(len(out.Equals)) != out.Bytes:
		r.d.errorf(e.equals, "equals: %d bytes can never equal a reply of bytes: %d", len(out.Equals), out.Bytes)
	case out.Bytes == 0 && len(out.Equals) > 0:
		out.Bytes = int64(len(out.Equals))
	case out.Bytes == 0 && out.Contains == nil && e.bytes == nil:
		r.d.errorf(e.node, "expect: with framing: none, needs bytes, contains or a non-empty equals to know when the reply is complete")
	}
	return out
}
