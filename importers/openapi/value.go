package openapi

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"

	pyaml "github.com/pb33f/go-yaml"
)

// kind is the JSON type of a value.
type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// value is a JSON value that keeps the order of an object's keys, as the
// description wrote them, so that the scenario reads like its examples.
type value struct {
	kind  kind
	text  string   // a bool's, number's or string's text
	items []value  // an array's items, an object's values
	keys  []string // an object's keys
}

func str(s string) value      { return value{kind: kString, text: s} }
func number(s string) value   { return value{kind: kNumber, text: s} }
func boolean(b bool) value    { return value{kind: kBool, text: strconv.FormatBool(b)} }
func object() value           { return value{kind: kObject} }
func array(vs ...value) value { return value{kind: kArray, items: vs} }

func (v *value) set(k string, x value) {
	for i, have := range v.keys {
		if have == k {
			v.items[i] = x
			return
		}
	}
	v.keys = append(v.keys, k)
	v.items = append(v.items, x)
}

// maxNodes bounds how much of an example, or of a value made from a
// schema, is taken: a body is a sample, not a copy of a large fixture.
const maxNodes = 2000

// fromNode is the value an example in the description holds. Aliases are
// followed within the budget of nodes.
func fromNode(n *pyaml.Node, budget *int) (value, bool) {
	if n == nil || *budget <= 0 {
		return value{}, false
	}
	*budget--
	switch n.Kind {
	case pyaml.DocumentNode:
		if len(n.Content) == 0 {
			return value{}, false
		}
		return fromNode(n.Content[0], budget)
	case pyaml.AliasNode:
		return fromNode(n.Alias, budget)
	case pyaml.SequenceNode:
		out := array()
		for _, c := range n.Content {
			v, ok := fromNode(c, budget)
			if !ok {
				break
			}
			out.items = append(out.items, v)
		}
		return out, true
	case pyaml.MappingNode:
		out := object()
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, ok := fromNode(n.Content[i+1], budget)
			if !ok {
				break
			}
			out.set(n.Content[i].Value, v)
		}
		return out, true
	case pyaml.ScalarNode:
		return scalar(n), true
	}
	return value{}, false
}

// scalar reads a YAML scalar as JSON would hold it.
func scalar(n *pyaml.Node) value {
	switch n.ShortTag() {
	case "!!null":
		return value{kind: kNull}
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err == nil {
			return boolean(b)
		}
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return number(strconv.FormatInt(i, 10))
		}
		if json.Valid([]byte(n.Value)) {
			return number(n.Value) // too large for int64, still a JSON number
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			if json.Valid([]byte(n.Value)) {
				return number(n.Value)
			}
			return number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return str(n.Value)
}

// JSON writes v as compact JSON.
func (v value) JSON() string {
	var b strings.Builder
	v.writeJSON(&b)
	return b.String()
}

func (v value) writeJSON(b *strings.Builder) {
	switch v.kind {
	case kNull:
		b.WriteString("null")
	case kBool, kNumber:
		b.WriteString(v.text)
	case kString:
		q, _ := json.Marshal(v.text) // a string always marshals
		b.Write(q)
	case kArray:
		b.WriteByte('[')
		for i, x := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			x.writeJSON(b)
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			v.items[i].writeJSON(b)
		}
		b.WriteByte('}')
	}
}

// plain is v as text in a URL, a header or a text body: a string as it
// is, an array's items joined by commas (OpenAPI's simple and form
// styles), an object as JSON.
func (v value) plain() string {
	switch v.kind {
	case kString, kBool, kNumber:
		return v.text
	case kNull:
		return ""
	case kArray:
		parts := make([]string, len(v.items))
		for i, x := range v.items {
			parts[i] = x.plain()
		}
		return strings.Join(parts, ",")
	}
	return v.JSON()
}

// form writes an object as application/x-www-form-urlencoded, an array
// property as the key repeated; anything else as one field "value".
func (v value) form() string {
	var parts []string
	add := func(k string, x value) {
		parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(x.plain()))
	}
	if v.kind != kObject {
		add("value", v)
		return strings.Join(parts, "&")
	}
	for i, k := range v.keys {
		x := v.items[i]
		if x.kind == kArray {
			for _, item := range x.items {
				add(k, item)
			}
			continue
		}
		add(k, x)
	}
	return strings.Join(parts, "&")
}
