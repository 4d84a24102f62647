package scenarios

import (
	"regexp"

	"go.yaml.in/yaml/v3"
)

// The first pass over a `tcp:` block. Framing kinds and header field types
// are keys, so they are checked here, once; their values may hold
// variables and are resolved per matrix combination in resolve_tcp.go.

type rawTCP struct {
	node                                   *yaml.Node
	address, connection, timeout, maxFrame *yaml.Node
	framing                                *rawFraming
	onConnect                              []*rawStep
	iterationKey                           *yaml.Node
	iteration                              []*rawStep
}

// rawFraming is `framing:`: the scalar `none`, or a mapping with one kind.
type rawFraming struct {
	node           *yaml.Node
	kinds          []*yaml.Node // the kind keys written, in file order
	lengthPrefixed *rawLengthPrefixed
	line, fixed    *yaml.Node
}

type rawLengthPrefixed struct {
	node                 *yaml.Node
	fieldsKey            *yaml.Node
	fields               []rawFrameField
	dropped              bool // an entry was invalid and reported, so it may have been the length
	adjust, littleEndian *yaml.Node
}

// rawFrameField is one `{u16: 1}` entry of a header, its type already parsed.
type rawFrameField struct {
	key, val *yaml.Node
	size     int
	little   bool
	explicit bool // the type named its byte order (u16le, u16be)
}

type rawStep struct {
	node                   *yaml.Node
	ok                     bool
	actions                []*yaml.Node // the action keys written, in file order
	send, sendRaw, sendHex *yaml.Node
	expect                 *rawTCPExpect
}

type rawTCPExpect struct {
	node                           *yaml.Node
	frame, contains, equals, bytes *yaml.Node
}

var tcpFields = []field[rawTCP]{
	scalarField("address", aString, func(t *rawTCP) **yaml.Node { return &t.address }),
	scalarField("connection", aString, func(t *rawTCP) **yaml.Node { return &t.connection }),
	scalarField("timeout", aDuration, func(t *rawTCP) **yaml.Node { return &t.timeout }),
	scalarField("max_frame", aSize, func(t *rawTCP) **yaml.Node { return &t.maxFrame }),
	{name: "framing", set: func(d *decoder, t *rawTCP, _, v *yaml.Node) { t.framing = d.framing(v) }},
	{name: "on_connect", set: func(d *decoder, t *rawTCP, _, v *yaml.Node) { t.onConnect = d.steps(v, "on_connect") }},
	{name: "iteration", set: func(d *decoder, t *rawTCP, k, v *yaml.Node) {
		t.iterationKey = k
		t.iteration = d.steps(v, "iteration")
	}},
}

// framingKinds is the mapping form of `framing:`, one key of which is set.
var framingKinds = []field[rawFraming]{
	{name: "length_prefixed", set: func(d *decoder, f *rawFraming, k, v *yaml.Node) {
		f.kinds = append(f.kinds, k)
		lp := &rawLengthPrefixed{node: d.deref(v)}
		if fields(d, v, "length_prefixed", "length_prefixed", lengthPrefixedFields, lp) {
			f.lengthPrefixed = lp
		}
	}},
	{name: "line", set: func(d *decoder, f *rawFraming, k, v *yaml.Node) {
		f.kinds = append(f.kinds, k)
		f.line = d.scalar(v, "line", "a delimiter such as \"\\r\\n\"")
	}},
	{name: "fixed", set: func(d *decoder, f *rawFraming, k, v *yaml.Node) {
		f.kinds = append(f.kinds, k)
		f.fixed = d.scalar(v, "fixed", anInteger)
	}},
}

var lengthPrefixedFields = []field[rawLengthPrefixed]{
	{name: "fields", set: func(d *decoder, lp *rawLengthPrefixed, k, v *yaml.Node) {
		lp.fieldsKey = k
		for _, n := range d.seq(v, "fields") {
			if f, ok := d.frameField(n); ok {
				lp.fields = append(lp.fields, f)
			} else {
				lp.dropped = true
			}
		}
	}},
	scalarField("adjust", anInteger, func(lp *rawLengthPrefixed) **yaml.Node { return &lp.adjust }),
	scalarField("little_endian", aBool, func(lp *rawLengthPrefixed) **yaml.Node { return &lp.littleEndian }),
}

// stepFields are the actions of a step, exactly one of which is written.
var stepFields = []field[rawStep]{
	stepAction("send", func(s *rawStep) **yaml.Node { return &s.send }),
	stepAction("send_raw", func(s *rawStep) **yaml.Node { return &s.sendRaw }),
	stepAction("send_hex", func(s *rawStep) **yaml.Node { return &s.sendHex }),
	{name: "expect", set: func(d *decoder, s *rawStep, k, v *yaml.Node) {
		s.actions = append(s.actions, k)
		e := &rawTCPExpect{node: d.deref(v)}
		if fields(d, v, "expect", "expect", tcpExpectFields, e) {
			s.expect = e
		}
	}},
}

func stepAction(name string, ptr func(*rawStep) **yaml.Node) field[rawStep] {
	return field[rawStep]{name: name, set: func(d *decoder, s *rawStep, k, v *yaml.Node) {
		s.actions = append(s.actions, k)
		*ptr(s) = d.scalar(v, name, aString)
	}}
}

var tcpExpectFields = []field[rawTCPExpect]{
	scalarField("frame", aBool, func(e *rawTCPExpect) **yaml.Node { return &e.frame }),
	scalarField("contains", aString, func(e *rawTCPExpect) **yaml.Node { return &e.contains }),
	scalarField("equals", aString, func(e *rawTCPExpect) **yaml.Node { return &e.equals }),
	scalarField("bytes", anInteger, func(e *rawTCPExpect) **yaml.Node { return &e.bytes }),
}

// frameFieldTypes lists the header field types for messages; the schema
// spells out the same names.
var frameFieldTypes = []string{
	"u8", "u16", "u32", "u64",
	"u16le", "u32le", "u64le",
	"u16be", "u32be", "u64be",
}

var frameFieldType = regexp.MustCompile(`^u(8|16|32|64)(le|be)?$`)

func (d *decoder) tcp(v *yaml.Node) *rawTCP {
	t := &rawTCP{node: d.deref(v)}
	if !fields(d, v, "tcp", "tcp", tcpFields, t) {
		return nil
	}
	return t
}

// framing reads `framing:`. It returns nil after reporting a value that
// is neither `none` nor a mapping with exactly one kind.
func (d *decoder) framing(v *yaml.Node) *rawFraming {
	n := d.deref(v)
	f := &rawFraming{node: n}
	const want = "none or a mapping with one of length_prefixed, line or fixed"
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value != "none" {
			d.errorf(n, "framing: expected %s, got %s", want, describe(n))
			return nil
		}
		return f
	case yaml.MappingNode:
	default:
		d.errorf(n, "framing: expected %s, got %s", want, describe(n))
		return nil
	}
	if !fields(d, n, "framing", "framing", framingKinds, f) {
		return nil
	}
	switch len(f.kinds) {
	case 0:
		d.errorf(n, "framing: needs one of length_prefixed, line or fixed (or write framing: none)")
		return nil
	case 1:
		return f
	}
	d.errorf(f.kinds[1], "framing: %s and %s exclude each other; a target has one framing", f.kinds[0].Value, f.kinds[1].Value)
	return nil
}

// frameField reads one header entry such as {u16: 1} or {u32le: length}.
func (d *decoder) frameField(n *yaml.Node) (rawFrameField, bool) {
	n = d.deref(n)
	const want = "a mapping with one entry such as {u16: 1} or {u32: length}"
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "fields: expected %s, got %s", want, describe(n))
		return rawFrameField{}, false
	}
	kvs := d.pairs(n, 0)
	if len(kvs) != 1 {
		d.errorf(n, "fields: expected %s, got %d entries", want, len(kvs))
		return rawFrameField{}, false
	}
	key := kvs[0].key
	m := frameFieldType.FindStringSubmatch(key.Value)
	if m == nil {
		d.errorf(key, "fields: unknown field type %q; want u8, u16, u32 or u64, optionally with le or be for the byte order (u32le)", key.Value)
		return rawFrameField{}, false
	}
	if m[1] == "8" && m[2] != "" {
		d.errorf(key, "fields: %q: a single byte has no byte order; write u8", key.Value)
		return rawFrameField{}, false
	}
	val := d.scalar(kvs[0].val, key.Value, "an integer or length")
	if val == nil {
		return rawFrameField{}, false
	}
	bits := map[string]int{"8": 1, "16": 2, "32": 4, "64": 8}
	return rawFrameField{key: key, val: val, size: bits[m[1]], little: m[2] == "le", explicit: m[2] != ""}, true
}

// steps reads a list of steps; each step is a mapping with one action.
func (d *decoder) steps(v *yaml.Node, label string) []*rawStep {
	var out []*rawStep
	for _, n := range d.seq(v, label) {
		if d.exhausted() {
			break
		}
		s := &rawStep{node: d.deref(n)}
		s.ok = fields(d, n, "step", "step", stepFields, s)
		switch {
		case !s.ok:
		case len(s.actions) == 0:
			// An unknown key has been reported already; a step of null
			// actions only (`- send:`) has not.
			if !hasUnknownKey(s.node, stepFields) {
				d.errorf(s.node, "%s: a step needs one of send, send_raw, send_hex or expect", label)
			}
			s.ok = false
		case len(s.actions) > 1:
			d.errorf(s.actions[1], "%s: %s and %s are two steps; write each as its own list entry", label, s.actions[0].Value, s.actions[1].Value)
			s.ok = false
		}
		out = append(out, s)
	}
	return out
}
