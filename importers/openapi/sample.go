package openapi

import (
	"math"
	"slices"
	"strconv"
	"strings"

	pyaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// maxDepth is how deep a value made from a schema goes: schemas that
// refer to themselves (a tree of categories) stop there.
const maxDepth = 6

// sampler makes values from schemas, noting what it had to invent.
type sampler struct {
	budget  int  // nodes left, shared by one value
	guessed bool // some part came from a type, not from an example, default or enum
	cut     bool // a self-referring schema was cut at maxDepth
}

func newSampler() *sampler { return &sampler{budget: maxNodes} }

// known is a value the schema itself gives: its example (or first of
// examples), const, default or first enum value.
func (s *sampler) known(sc *base.Schema) (value, bool) {
	if sc == nil {
		return value{}, false
	}
	if v, ok := fromNode(sc.Example, &s.budget); ok {
		return v, true
	}
	for _, ex := range sc.Examples {
		if v, ok := fromNode(ex, &s.budget); ok {
			return v, true
		}
	}
	for _, n := range append([]*pyaml.Node{sc.Const, sc.Default}, sc.Enum...) {
		if v, ok := fromNode(n, &s.budget); ok {
			return v, true
		}
	}
	return value{}, false
}

func schemaOf(p *base.SchemaProxy) *base.Schema {
	if p == nil {
		return nil
	}
	sc, err := p.BuildSchema()
	if err != nil {
		return nil
	}
	return sc
}

// sample is a value valid for the schema, as far as a value made without
// a pattern solver can be: required properties only, one item per
// array, the lowest number allowed, a string of a format's shape.
func (s *sampler) sample(p *base.SchemaProxy, depth int) value {
	sc := schemaOf(p)
	if sc == nil || s.budget <= 0 {
		s.guessed = true
		return str("string")
	}
	s.budget--
	if v, ok := s.known(sc); ok {
		return v
	}
	if depth >= maxDepth {
		s.cut = true
		return s.empty(sc)
	}
	if len(sc.AllOf) > 0 {
		return s.allOf(sc, depth)
	}
	for _, alts := range [][]*base.SchemaProxy{sc.OneOf, sc.AnyOf} {
		if len(alts) > 0 {
			return s.sample(alts[0], depth+1)
		}
	}
	s.guessed = true
	switch typeOf(sc) {
	case "object":
		return s.object(sc, depth)
	case "array":
		return s.array(sc, depth)
	case "integer":
		return number(integer(sc))
	case "number":
		return number(decimal(sc))
	case "boolean":
		return boolean(true)
	case "null":
		return value{kind: kNull}
	}
	return str(stringOf(sc))
}

// allOf merges what each part makes; an object's properties add up.
func (s *sampler) allOf(sc *base.Schema, depth int) value {
	var out value
	for i, part := range sc.AllOf {
		v := s.sample(part, depth+1)
		if i == 0 || v.kind != kObject || out.kind != kObject {
			out = v
			continue
		}
		for j, k := range v.keys {
			out.set(k, v.items[j])
		}
	}
	if typeOf(sc) == "object" && sc.Properties != nil {
		own := s.object(sc, depth)
		if out.kind != kObject {
			return own
		}
		for j, k := range own.keys {
			out.set(k, own.items[j])
		}
	}
	return out
}

func (s *sampler) object(sc *base.Schema, depth int) value {
	out := object()
	if sc.Properties == nil {
		return out
	}
	for name, prop := range sc.Properties.FromOldest() {
		if !slices.Contains(sc.Required, name) {
			continue
		}
		if ps := schemaOf(prop); ps != nil && ps.ReadOnly != nil && *ps.ReadOnly {
			continue // the server fills it; a client does not send it
		}
		out.set(name, s.sample(prop, depth+1))
		if s.budget <= 0 {
			break
		}
	}
	return out
}

func (s *sampler) array(sc *base.Schema, depth int) value {
	n := 1
	if sc.MinItems != nil && *sc.MinItems > 1 {
		n = int(min(*sc.MinItems, 5))
	}
	if sc.Items == nil || sc.Items.A == nil {
		return array()
	}
	out := array()
	for range n {
		out.items = append(out.items, s.sample(sc.Items.A, depth+1))
	}
	return out
}

// empty is what stands for a value past maxDepth.
func (s *sampler) empty(sc *base.Schema) value {
	switch typeOf(sc) {
	case "array":
		return array()
	case "object", "":
		return object()
	}
	return s.sample(nil, 0)
}

// typeOf is the schema's type, the first that is not null; without one,
// what its keywords imply.
func typeOf(sc *base.Schema) string {
	for _, t := range sc.Type {
		if t != "null" {
			return t
		}
	}
	switch {
	case len(sc.Type) > 0:
		return "null"
	case sc.Properties != nil && sc.Properties.Len() > 0:
		return "object"
	case sc.Items != nil:
		return "array"
	}
	return ""
}

func integer(sc *base.Schema) string {
	lo, hi := bounds(sc)
	n := int64(1)
	switch {
	case lo != nil:
		n = int64(math.Ceil(*lo))
	case hi != nil && *hi < 1:
		n = int64(math.Floor(*hi))
	}
	if sc.MultipleOf != nil && *sc.MultipleOf >= 1 {
		m := int64(*sc.MultipleOf)
		if r := n % m; r != 0 {
			n += m - r
		}
	}
	return strconv.FormatInt(n, 10)
}

func decimal(sc *base.Schema) string {
	lo, hi := bounds(sc)
	f := 1.0
	switch {
	case lo != nil:
		f = *lo
	case hi != nil && *hi < 1:
		f = *hi
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		f = 1
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// bounds are the lowest and highest values allowed, exclusive bounds
// (a boolean in 3.0, a number in 3.1) moved inwards by one.
func bounds(sc *base.Schema) (lo, hi *float64) {
	lo, hi = sc.Minimum, sc.Maximum
	if e := sc.ExclusiveMinimum; e != nil {
		switch {
		case e.N == 1:
			v := e.B + 1
			lo = &v
		case e.A && lo != nil:
			v := *lo + 1
			lo = &v
		}
	}
	if e := sc.ExclusiveMaximum; e != nil {
		switch {
		case e.N == 1:
			v := e.B - 1
			hi = &v
		case e.A && hi != nil:
			v := *hi - 1
			hi = &v
		}
	}
	return lo, hi
}

// formats are strings of the shape a format asks for.
var formats = map[string]string{
	"date-time": "2024-01-01T00:00:00Z",
	"date":      "2024-01-01",
	"time":      "00:00:00Z",
	"duration":  "PT1M",
	"email":     "user@example.com",
	"uuid":      "00000000-0000-4000-8000-000000000000",
	"uri":       "https://example.com/",
	"url":       "https://example.com/",
	"hostname":  "example.com",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
	"byte":      "c3RyaW5n",
	"password":  "password",
}

func stringOf(sc *base.Schema) string {
	s, ok := formats[sc.Format]
	if !ok {
		s = "string"
	}
	if sc.MinLength != nil && int64(len(s)) < *sc.MinLength {
		s += strings.Repeat("x", int(min(*sc.MinLength, 256))-len(s))
	}
	if sc.MaxLength != nil && *sc.MaxLength >= 0 && int64(len(s)) > *sc.MaxLength {
		s = s[:*sc.MaxLength]
	}
	return s
}
