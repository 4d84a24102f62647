package har

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/importers/emit"
)

// target is one target of the scenario: the origin's steps as a flow.
func (e *emitter) target(t *target) *yaml.Node {
	h := emit.NewMapping()
	h.Set("url", emit.Str("${"+e.base[t]+"}"))
	if len(t.cookies) > 0 {
		h.Set("cookies", emit.Plain("true"), "a cookie jar per virtual user carries what responses set: "+strings.Join(t.cookies, ", "))
	}
	var steps []*yaml.Node
	for _, s := range t.steps {
		steps = append(steps, e.step(s))
	}
	h.Set("flow", emit.Seq(steps...), "one iteration sends these steps in order, as the browser did")
	m := emit.NewMapping()
	m.Set("name", emit.Str(e.names[t]))
	m.Set("http", h.N)
	var notes []string
	if n := unsafeMethods(t.steps); n != "" {
		notes = append(notes, n)
	}
	notes = append(notes, t.notes...)
	if n := protocolNote(t.steps); n != "" {
		notes = append(notes, n)
	}
	m.N.HeadComment = emit.Comments(notes)
	return m.N
}

// protocolNote says when the browser spoke another HTTP than the
// scenario's HTTP/1.1.
func protocolNote(steps []*step) string {
	for _, s := range steps {
		switch v := strings.ToLower(s.e.Request.HTTPVersion); v {
		case "h2", "http/2", "http/2.0":
			return "recorded over HTTP/2; the scenario speaks HTTP/1.1 (add http2: true to speak HTTP/2)"
		case "h3", "http/3", "http/3.0":
			return "recorded over HTTP/3, which loadgate does not speak; the scenario speaks HTTP/1.1"
		}
	}
	return ""
}

func (e *emitter) step(s *step) *yaml.Node {
	m := emit.NewMapping()
	m.Set("name", emit.Str(s.name))
	if s.method != "GET" {
		m.Set("method", emit.Str(s.method))
	}
	m.Set("path", emit.Str(s.path.text()))
	if len(s.headers) > 0 {
		hs := emit.NewMapping()
		for _, h := range s.headers {
			hs.Set(h.name, emit.Str(h.value.text()))
		}
		m.Set("headers", hs.N)
	}
	if s.body != nil {
		m.Set("body", emit.Str(s.body.text()))
	}
	if s.status != 0 {
		status := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{emit.Plain(fmt.Sprint(s.status))}}
		expect := emit.Flow()
		expect.Content = append(expect.Content, emit.Str("status"), status)
		m.Set("expect", expect)
	}
	if len(s.extract) > 0 {
		x := emit.NewMapping()
		for _, r := range s.extract {
			x.Set(r.name, emit.Flow(r.kind, ""))
			x.N.Content[len(x.N.Content)-1].Content[1] = emit.Str(r.spec)
		}
		m.Set("extract", x.N)
	}
	if s.think > 0 {
		m.Set("think_time", emit.Plain(s.think.String()))
	}
	m.N.HeadComment = emit.Comments(s.notes)
	return m.N
}

// text is v as a flow template: literal text escaped, replacements as
// they are.
func (v *val) text() string {
	var b strings.Builder
	last := 0
	for _, s := range v.subs {
		b.WriteString(emit.Escape(v.s[last:s.off], true, true))
		b.WriteString(s.ref)
		last = s.end
	}
	b.WriteString(emit.Escape(v.s[last:], true, false))
	return b.String()
}

// unsafeMethods warns that a load test repeats what may change data.
func unsafeMethods(steps []*step) string {
	methods := make([]string, len(steps))
	for i, x := range steps {
		methods[i] = x.method
	}
	return emit.UnsafeMethods(methods)
}

// maxMissed bounds the list of values not found, which a large
// recording could make longer than the scenario.
const maxMissed = 20

// header is the comment at the top: where the scenario came from, what
// was left out, and which values were carried from response to request.
func (e *emitter) header() []string {
	var out []string
	if e.opts.SchemaURL != "" {
		out = append(out, "yaml-language-server: $schema="+e.opts.SchemaURL)
	}
	by := ""
	if b := e.lg.Browser; b != nil && b.Name != "" {
		by = ", " + b.Name + " " + b.Version
	}
	if c := e.lg.Creator; c.Name != "" {
		by += ", recorded by " + c.Name + " " + c.Version
	}
	kept := 0
	for _, t := range e.rec.targets {
		kept += len(t.steps)
	}
	left := e.rec.leftOut()
	if e.rec.assets > 0 || len(e.rec.origins) > 0 {
		left += " (" + e.rec.hint() + ")"
	}
	think := "the recorded pause after it is its think_time (at most " + e.opts.MaxThink.String() + ", --max-think)"
	if e.opts.NoThink {
		think = "no think times (--no-think)"
	}
	out = append(out, fmt.Sprintf("Imported from %s (HAR %s%s) by loadgate import har (docs/import.md).", e.file, e.lg.Version, by),
		fmt.Sprintf("Kept %d of %s, in recorded order; left out: %s.", kept, plural(len(e.rec.entries), "request"), left),
		"Each step expects the status it got when recorded; "+think+".")
	for _, o := range e.rec.other {
		out = append(out, "  "+o)
	}
	many := len(e.rec.targets) > 1
	for _, t := range e.rec.targets {
		prefix := ""
		if many {
			prefix = e.names[t] + ": "
		}
		if len(t.reused) == 0 {
			out = append(out, prefix+"No value of a response is sent again by a later request: nothing extracted.")
		} else {
			out = append(out, prefix+"Extracted, as a later request sends what an earlier response gave:")
			for _, r := range t.reused {
				out = append(out, fmt.Sprintf("  %s: %s %s of %s's response; sent in %s", r.name, r.kind, r.spec, r.from.name, r.usedText()))
			}
		}
		if len(t.missed) > 0 {
			out = append(out, prefix+"Reused-looking values found in no earlier response, sent as recorded (check them):")
			for i, m := range t.missed {
				if i == maxMissed {
					out = append(out, fmt.Sprintf("  and %d more", len(t.missed)-maxMissed))
					break
				}
				out = append(out, "  "+m)
			}
		}
	}
	if many {
		out = append(out, "Each origin is a target of its own: a value is extracted only from the same origin's responses.")
	}
	return out
}
