package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// message compiles `message:` into a template of its protojson text. A
// mapping is converted to JSON here, its string values keeping their
// placeholders; a string is taken as JSON text, placeholders anywhere. ok
// is false when the template is not worth checking further.
func (r *resolver) message(n *yaml.Node) (Template, bool) {
	if n == nil {
		return literalTemplate([]byte("{}")), true
	}
	if n.Kind == yaml.ScalarNode {
		t, ok := r.template(n, "message")
		if !ok {
			return t, false
		}
		if t.MaxLen() == 0 {
			return literalTemplate([]byte("{}")), true
		}
		sample := sampleRender(t)
		if !json.Valid(sample) {
			r.d.errorf(n, "message: not valid JSON once its placeholders are filled in: %s", jsonProblem(sample))
			return t, false
		}
		if bytes.TrimSpace(sample)[0] != '{' {
			r.d.errorf(n, "message: expected a JSON object, got %s", abbreviate(string(sample)))
			return t, false
		}
		return t, true
	}
	b := &jsonBuilder{r: r, ok: true}
	b.value(n, 0)
	return b.t, b.ok
}

// maxMessageDepth bounds the nesting of a message written as YAML: an
// alias may refer to the mapping that contains it, which would otherwise
// nest without end.
const maxMessageDepth = 100

// jsonBuilder converts a YAML node to a JSON template.
type jsonBuilder struct {
	r  *resolver
	t  Template
	ok bool
}

func (b *jsonBuilder) lit(s string) {
	if n := len(b.t.Parts); n > 0 && b.t.Parts[n-1].Kind == PartLiteral {
		b.t.Parts[n-1].Literal = append(b.t.Parts[n-1].Literal, s...)
		return
	}
	b.t.Parts = append(b.t.Parts, TemplatePart{Kind: PartLiteral, Literal: []byte(s)})
}

func (b *jsonBuilder) value(n *yaml.Node, depth int) {
	n = b.r.d.deref(n)
	if depth > maxMessageDepth || b.r.d.exhausted() {
		if b.ok && !b.r.d.exhausted() {
			b.r.d.errorf(n, "message: nested more than %d levels deep", maxMessageDepth)
		}
		b.ok = false
		b.lit("null")
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		b.lit("{")
		for i, kv := range b.r.d.pairs(n, 0) {
			if i > 0 {
				b.lit(",")
			}
			b.lit(jsonString(kv.key.Value))
			b.lit(":")
			b.value(kv.val, depth+1)
		}
		b.lit("}")
	case yaml.SequenceNode:
		b.lit("[")
		for i, item := range n.Content {
			if i > 0 {
				b.lit(",")
			}
			b.value(item, depth+1)
		}
		b.lit("]")
	case yaml.ScalarNode:
		b.scalar(n)
	default:
		b.lit("null")
	}
}

// scalar writes one scalar. A plain scalar that reads as a number, a
// boolean or null after substitution is written as one, so `n: ${count}`
// gives a number; everything else is a string whose placeholders are kept.
func (b *jsonBuilder) scalar(n *yaml.Node) {
	s, ok := b.r.text(n)
	if !ok {
		b.ok = false
		b.lit(`""`)
		return
	}
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		if lit, ok := plainJSON(s); ok {
			b.lit(lit)
			return
		}
	}
	t, errs := compileTemplate(s)
	for _, e := range errs {
		b.r.d.errs = append(b.r.d.errs, Errorf(b.r.substitutedPos(n, s, e.Off), "message: %s", e.Msg))
		b.ok = false
	}
	b.lit(`"`)
	for _, p := range t.Parts {
		if p.Kind != PartLiteral {
			// Placeholders render digits, letters and dashes only, which
			// need no escaping inside a JSON string.
			b.t.Parts = append(b.t.Parts, p)
			continue
		}
		q := jsonString(string(p.Literal))
		b.lit(q[1 : len(q)-1])
	}
	b.lit(`"`)
}

// plainJSON reads an unquoted YAML scalar as a JSON number, boolean or
// null, as YAML's core schema would.
func plainJSON(s string) (string, bool) {
	switch s {
	case "true", "True", "TRUE":
		return "true", true
	case "false", "False", "FALSE":
		return "false", true
	case "", "~", "null", "Null", "NULL":
		return "null", true
	}
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return strconv.FormatInt(v, 10), true
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		return strconv.FormatUint(v, 10), true
	}
	if strings.ContainsAny(s, "0123456789") && !strings.ContainsAny(s, "xXpP_") {
		if v, err := strconv.ParseFloat(s, 64); err == nil && !isInfOrNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64), true
		}
	}
	return "", false
}

func isInfOrNaN(v float64) bool {
	return v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308
}

// jsonString quotes s as a JSON string, leaving <, > and & as they are.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// sampleRender renders t with a value of the right shape for each
// placeholder, so the message can be checked once at load time.
func sampleRender(t Template) []byte {
	var out []byte
	for _, p := range t.Parts {
		switch p.Kind {
		case PartLiteral:
			out = append(out, p.Literal...)
		case PartNowMS:
			out = append(out, "1700000000000"...)
		case PartSeq:
			out = append(out, '1')
		case PartWorker, PartVar:
			out = append(out, '0')
		case PartUUID:
			out = append(out, "00000000-0000-4000-8000-000000000000"...)
		case PartRandInt:
			out = strconv.AppendInt(out, p.Min, 10)
		}
	}
	return out
}

// jsonProblem says what is wrong with invalid JSON text.
func jsonProblem(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err.Error()
	}
	return "invalid"
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}

// checkMessage builds the request message from t with sample values, so
// that a field the descriptor lacks or a value of the wrong type is found
// now. With a mapping, unknown fields are reported at their keys.
// at is where to report other problems: n, or the target when the
// message was left out.
func (r *resolver) checkMessage(n, at *yaml.Node, t Template, md protoreflect.MethodDescriptor) {
	in := md.Input()
	if n != nil && n.Kind == yaml.MappingNode && !r.knownFields(n, in, "message") {
		return
	}
	msg := dynamicpb.NewMessage(in)
	if err := protojson.Unmarshal(sampleRender(t), msg); err != nil {
		r.d.errorf(at, "message: not a valid %s: %s", in.FullName(), protoErrorText(err))
	}
}

// knownFields reports the keys of mapping n that message md lacks, and
// descends into nested messages; it returns false when it reported one.
func (r *resolver) knownFields(n *yaml.Node, md protoreflect.MessageDescriptor, label string) bool {
	n = r.d.deref(n)
	if n.Kind != yaml.MappingNode || md.FullName().Parent() == "google.protobuf" {
		// Well-known types have JSON forms of their own; protojson checks them.
		return true
	}
	ok := true
	for _, kv := range r.d.pairs(n, 0) {
		name := kv.key.Value
		fd := md.Fields().ByJSONName(name)
		if fd == nil {
			fd = md.Fields().ByTextName(name)
		}
		if fd == nil {
			var names []string
			for i := range md.Fields().Len() {
				names = append(names, md.Fields().Get(i).JSONName())
			}
			r.d.errorf(kv.key, "%s: %s has no field %q%s", label, md.FullName(), name, knownNames(name, names))
			ok = false
			continue
		}
		ok = r.knownNested(kv.val, fd, label+"."+name) && ok
	}
	return ok
}

// knownNested checks the value of a message-typed field: one message, a
// list of them, or a map whose values are messages.
func (r *resolver) knownNested(v *yaml.Node, fd protoreflect.FieldDescriptor, label string) bool {
	v = r.d.deref(v)
	switch {
	case fd.IsMap() && fd.MapValue().Message() != nil && v.Kind == yaml.MappingNode:
		ok := true
		for _, kv := range r.d.pairs(v, 0) {
			ok = r.knownFields(kv.val, fd.MapValue().Message(), fmt.Sprintf("%s.%s", label, kv.key.Value)) && ok
		}
		return ok
	case fd.IsMap() || fd.Message() == nil:
		return true
	case fd.IsList() && v.Kind == yaml.SequenceNode:
		ok := true
		for i, item := range v.Content {
			ok = r.knownFields(item, fd.Message(), fmt.Sprintf("%s[%d]", label, i)) && ok
		}
		return ok
	}
	return r.knownFields(v, fd.Message(), label)
}

// protoErrorText is a protobuf error without its "proto:" prefix. The
// library writes the space after it as a random choice of a plain or a
// non-breaking space, so that no one depends on the text; a diagnostic
// must read the same every time.
func protoErrorText(err error) string {
	msg := strings.ReplaceAll(err.Error(), "\u00a0", " ")
	return strings.TrimPrefix(msg, "proto: ")
}
