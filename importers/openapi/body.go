package openapi

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// example is the first value the description gives: an example, or the
// first of examples that holds a value (externalValue is not fetched).
func example(single value, hasSingle bool, examples *orderedmap.Map[string, *base.Example], budget *int) (value, bool) {
	if hasSingle {
		return single, true
	}
	if examples != nil {
		for _, e := range examples.FromOldest() {
			if e == nil {
				continue
			}
			if v, ok := fromNode(e.Value, budget); ok {
				return v, true
			}
			if v, ok := fromNode(e.DataValue, budget); ok {
				return v, true
			}
		}
	}
	return value{}, false
}

// paramValue is the text that stands for parameter p: its example,
// default or enum; else, in a flow's path or query, a column of the data
// file; else a value made from its schema, noted as a guess. inURL
// percent-encodes it.
func (b *builder) paramValue(r *request, p *v3.Parameter, inURL bool) (string, bool) {
	s := newSampler()
	v, ok := b.paramExample(p, s)
	where := strings.ToLower(p.In)
	if !ok && inURL && b.data != nil {
		guess := newSampler().sample(p.Schema, 0)
		col := b.data.column(p.Name, encodeParam(guess.plain(), where))
		return "{{" + dataSource + "." + col + "}}", true
	}
	if !ok {
		v = s.sample(p.Schema, 0)
		r.notes = append(r.notes, fmt.Sprintf("%s parameter %s: %s is a guess from its schema", where, p.Name, v.plain()))
	}
	text := v.plain()
	if inURL {
		return esc(encodeParam(text, where), b.templated), true
	}
	if strings.ContainsAny(text, "\r\n\x00") {
		r.notes = append(r.notes, fmt.Sprintf("%s parameter %s: its example is not one line, so it is not sent", where, p.Name))
		return "", false
	}
	return esc(text, b.templated), true
}

func encodeParam(text, where string) string {
	if where == "path" {
		return url.PathEscape(text)
	}
	return url.QueryEscape(text)
}

func (b *builder) paramExample(p *v3.Parameter, s *sampler) (value, bool) {
	single, hasSingle := fromNode(p.Example, &s.budget)
	if v, ok := example(single, hasSingle, p.Examples, &s.budget); ok {
		return v, true
	}
	if p.Content != nil {
		for _, mt := range p.Content.FromOldest() {
			if mt == nil {
				continue
			}
			if v, ok := mediaExample(mt, s); ok {
				return v, true
			}
		}
	}
	return s.known(schemaOf(p.Schema))
}

func mediaExample(mt *v3.MediaType, s *sampler) (value, bool) {
	single, hasSingle := fromNode(mt.Example, &s.budget)
	if v, ok := example(single, hasSingle, mt.Examples, &s.budget); ok {
		return v, true
	}
	return s.known(schemaOf(mt.Schema))
}

// bodyKind is how a media type's body is written.
type bodyKind int

const (
	bodyNone bodyKind = iota
	bodyJSON
	bodyForm
	bodyText
)

func kindOf(mediaType string) bodyKind {
	mt, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mediaType)), ";")
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json"):
		return bodyJSON
	case mt == "application/x-www-form-urlencoded":
		return bodyForm
	case mt == "text/plain":
		return bodyText
	}
	return bodyNone
}

// requestBody picks the first media type the scenario can write (JSON,
// a URL-encoded form, plain text) and fills the body from its example or
// schema. An operation whose body can only be multipart, binary or XML
// is not sent: why says so.
func (b *builder) requestBody(r *request, op *v3.Operation) string {
	rb := op.RequestBody
	if rb == nil || rb.Content == nil || rb.Content.Len() == 0 {
		return ""
	}
	var offered []string
	for name, mt := range rb.Content.FromOldest() {
		k := kindOf(name)
		if k == bodyNone || mt == nil || !validToken(strings.ReplaceAll(strings.SplitN(name, ";", 2)[0], "/", "")) {
			offered = append(offered, name)
			continue
		}
		s := newSampler()
		v, ok := mediaExample(mt, s)
		if !ok {
			v = s.sample(mt.Schema, 0)
		}
		switch {
		case s.cut:
			r.notes = append(r.notes, "body made from the schema, cut where the schema refers to itself")
		case !ok && s.guessed:
			r.notes = append(r.notes, "body made from the schema (required properties only): check the values")
		}
		var text string
		switch k {
		case bodyJSON:
			text = v.JSON()
		case bodyForm:
			text = v.form()
		case bodyText:
			text = v.plain()
		}
		r.headers = append(r.headers, [2]string{"Content-Type", strings.TrimSpace(name)})
		r.body = esc(text, b.templated)
		return ""
	}
	return "request body only as " + strings.Join(offered, ", ") + ", which an import does not write"
}
