package scenarios

import (
	"fmt"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// flowBase is what the steps of a flow take from their target.
type flowBase struct {
	hasURL   bool // the target has a url, though perhaps an invalid one
	base     *url.URL
	baseText string
	headers  []Header
}

// flowTarget resolves `setup:` and `flow:` into out.Flow, and lists the
// steps in out.Requests so that code which only reads a target's requests
// sees them.
func (r *resolver) flowTarget(h *rawHTTP, out *HTTPTarget, fb flowBase) {
	switch {
	case h.flowKey == nil:
		r.d.errorf(h.setupKey, "setup: needs a flow; setup runs once per virtual user before its flow's iterations")
		return
	case h.requestsKey != nil:
		r.d.errorf(h.flowKey, "http: set requests or flow, not both; a flow's steps are its requests")
		return
	case len(h.flow) == 0:
		r.d.errorf(h.flowKey, "flow: needs at least one step")
		return
	}
	for _, n := range []*yaml.Node{h.method, h.body, h.bodyFile} {
		if n != nil {
			r.d.errorf(n, "http: with a flow, set method and body on each step")
		}
	}
	f := &Flow{}
	if h.cookies != nil {
		f.Cookies, _ = r.bool(h.cookies, "cookies")
	}
	sc := newFlowScope(r, h.setup, h.flow)
	for i, e := range sc.steps {
		if !e.ok {
			continue
		}
		sc.cur = i
		st := sc.step(e, fb, out.Expect)
		if i < len(h.setup) {
			f.Setup = append(f.Setup, st)
		} else {
			f.Steps = append(f.Steps, st)
		}
	}
	sc.finish(f)
	out.Flow = f
	out.Requests = nil
	for _, st := range f.Steps {
		out.Requests = append(out.Requests, HTTPRequest{Name: st.Name, Method: st.Method, URL: sc.urlText[st.Name], Weight: 1})
	}
}

// flowScope tracks the variables of one flow while its steps resolve:
// which step extracts which name, and the slots handed out so far.
type flowScope struct {
	r        *resolver
	steps    []*rawFlowStep // setup, then flow: the order in which values become known
	setupLen int
	cur      int // the step being resolved, an index into steps
	// definedBy lists, per extracted name, the steps extracting it.
	definedBy map[string][]int
	extracts  [][]Extraction // per step, resolved before any template
	// vars and slots are in order of first appearance; finish puts the
	// data columns first, as Flow.Vars documents.
	vars       []FlowVar
	slots      map[string]int
	setupData  []int
	stepData   []int
	stepNames  map[string]*yaml.Node
	urlText    map[string]string
	stepLabels []string
}

func newFlowScope(r *resolver, setup, flow []*rawFlowStep) *flowScope {
	sc := &flowScope{
		r: r, steps: append(slices.Clone(setup), flow...), setupLen: len(setup),
		definedBy: map[string][]int{}, slots: map[string]int{},
		stepNames: map[string]*yaml.Node{}, urlText: map[string]string{},
	}
	sc.extracts = make([][]Extraction, len(sc.steps))
	sc.stepLabels = make([]string, len(sc.steps))
	for i, e := range sc.steps {
		if !e.ok {
			continue
		}
		sc.stepLabels[i] = sc.stepName(e)
		for _, x := range e.extract {
			if ex, ok := r.extraction(x); ok {
				ex.Slot = sc.slot(ex.Var, -1, 0)
				sc.extracts[i] = append(sc.extracts[i], ex)
				sc.definedBy[ex.Var] = append(sc.definedBy[ex.Var], i)
			}
		}
	}
	return sc
}

// stepName resolves and checks a step's name: required, valid, and unique
// across setup and flow, since it keys requests_by_name.
func (sc *flowScope) stepName(e *rawFlowStep) string {
	if e.name == nil {
		sc.r.d.errorf(e.node, "step: missing required field %q", "name")
		return ""
	}
	name, ok := sc.r.name(e.name, "name")
	if !ok {
		return ""
	}
	if first, dup := sc.stepNames[name]; dup {
		sc.r.d.errorf(e.name, "step %q is defined twice (first at line %d); step names are unique across setup and flow", name, first.Line)
		return name
	}
	sc.stepNames[name] = e.name
	return name
}

// slot returns the slot of a variable, adding it on first use.
func (sc *flowScope) slot(name string, src, col int) int {
	if i, ok := sc.slots[name]; ok {
		return i
	}
	sc.slots[name] = len(sc.vars)
	sc.vars = append(sc.vars, FlowVar{Name: name, Source: src, Column: col})
	return len(sc.vars) - 1
}

// lookup is the varScope of the current step's templates.
func (sc *flowScope) lookup(name string) (int, string) {
	if strings.Contains(name, ".") {
		src, col, msg := sc.r.d.dataColumn(name)
		if msg != "" {
			return 0, msg
		}
		if sc.cur < sc.setupLen {
			sc.setupData = appendNew(sc.setupData, src)
		} else {
			sc.stepData = appendNew(sc.stepData, src)
		}
		return sc.slot(name, src, col), ""
	}
	defs := sc.definedBy[name]
	if len(defs) > 0 && defs[0] < sc.cur {
		return sc.slots[name], ""
	}
	switch {
	case slices.Contains(defs, sc.cur):
		return 0, fmt.Sprintf("{{%s}} is extracted by this step, from its response: only later steps can use it", name)
	case len(defs) > 0:
		return 0, fmt.Sprintf("{{%s}} is extracted by step %q, which comes later: a step can use only what earlier steps extracted",
			name, sc.stepLabels[defs[0]])
	}
	known := slices.Clone(placeholderNames)
	for v, d := range sc.definedBy {
		if d[0] < sc.cur {
			known = append(known, v)
		}
	}
	slices.Sort(known[len(placeholderNames):])
	return 0, fmt.Sprintf("unknown placeholder {{%s}}%s: not a built-in (%s), a value extracted by an earlier step, or a data column {{source.column}}",
		name, suggest(name, known), strings.Join(placeholderNames, ", "))
}

func appendNew(list []int, v int) []int {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// finish fills f's variable table, data columns first, and renumbers the
// slots the templates and extractions hold to match.
func (sc *flowScope) finish(f *Flow) {
	order := make([]int, 0, len(sc.vars))
	for i, v := range sc.vars {
		if v.Source >= 0 {
			order = append(order, i)
		}
	}
	for i, v := range sc.vars {
		if v.Source < 0 {
			order = append(order, i)
		}
	}
	newSlot := make([]int, len(sc.vars))
	for to, from := range order {
		newSlot[from] = to
		f.Vars = append(f.Vars, sc.vars[from])
	}
	renumber := func(t *Template) {
		for i := range t.Parts {
			if t.Parts[i].Kind == PartVar {
				t.Parts[i].Slot = newSlot[t.Parts[i].Slot]
			}
		}
	}
	for _, list := range [][]Step{f.Setup, f.Steps} {
		for i := range list {
			st := &list[i]
			renumber(&st.URL)
			renumber(&st.Body)
			for j := range st.Headers {
				renumber(&st.Headers[j].Value)
			}
			for j := range st.Extract {
				st.Extract[j].Slot = newSlot[st.Extract[j].Slot]
			}
		}
	}
	f.SetupData, f.StepData = sc.setupData, sc.stepData
}

// step resolves the current step. Its templates see the built-ins, the
// data sources and what earlier steps extract.
func (sc *flowScope) step(e *rawFlowStep, fb flowBase, expect Expect) Step {
	r := sc.r
	st := Step{Name: sc.stepLabels[sc.cur], Pos: r.d.pos(e.node), Method: "GET", Expect: expect, Extract: sc.extracts[sc.cur]}
	if e.method != nil {
		st.Method = r.method(e.method)
	}
	st.URL = sc.stepURL(e, fb, st.Name)
	st.Headers = sc.stepHeaders(e.headers, fb.headers)
	switch {
	case e.body != nil && e.bodyFile != nil:
		r.d.errorf(e.bodyFile, "step %q: set body or body_file, not both", st.Name)
	case e.body != nil:
		st.Body, _ = sc.template(e.body, "body")
	case e.bodyFile != nil:
		// A body file is sent as is: it may well hold "{{" meant for
		// another system, and its lines have no place in this file.
		if name, ok := r.text(e.bodyFile); ok {
			data, msg := r.d.readFile(name)
			if msg != "" && !r.d.judgeOnly {
				r.d.errorf(e.bodyFile, "body_file: cannot read %q: %s", name, msg)
			}
			st.Body = literalTemplate(data)
		}
	}
	if e.expectKey != nil {
		st.Expect = r.expect(&e.expect)
	}
	if e.thinkTime != nil {
		st.ThinkTime, _ = r.duration(e.thinkTime, "think_time")
	}
	return st
}

// template compiles n's value in the current step's scope.
func (sc *flowScope) template(n *yaml.Node, label string) (Template, bool) {
	s, ok := sc.r.text(n)
	if !ok {
		return Template{}, false
	}
	t, errs := compileScoped(s, sc.lookup)
	for _, e := range errs {
		sc.r.d.errs = append(sc.r.d.errs, Errorf(sc.r.substitutedPos(n, s, e.Off), "%s: %s", label, e.Msg))
	}
	return t, len(errs) == 0
}

// stepURL resolves a step's `url:` or `path:` into a template that
// renders an absolute URL. The scheme and host are always written out:
// they choose the connection, which a placeholder must not.
func (sc *flowScope) stepURL(e *rawFlowStep, fb flowBase, name string) Template {
	r := sc.r
	switch {
	case e.url != nil && e.path != nil:
		r.d.errorf(e.path, "step %q: set url or path, not both", name)
	case e.url != nil:
		r.used = r.used[:0]
		s, ok := r.text(e.url)
		if !ok {
			return Template{}
		}
		if i := strings.Index(s, "{{"); i >= 0 {
			_, after, hasScheme := strings.Cut(s[:i], "://")
			if !hasScheme || !strings.ContainsAny(after, "/?#") {
				r.d.errs = append(r.d.errs, Errorf(r.substitutedPos(e.url, s, i),
					"url: write the scheme and host out; placeholders may stand only in the path and query (for a whole path from a placeholder, write path: \"{{name}}\")"))
				return Template{}
			}
		}
		if _, u := r.checkURL(e.url, "url", placeholderFree(s)); u == nil {
			return Template{}
		}
		t, _ := sc.template(e.url, "url")
		sc.urlText[name] = s
		return t
	case e.path != nil:
		s, ok := r.text(e.path)
		switch {
		case !ok:
		case !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "{{"):
			// A path may start with a placeholder holding a whole path, such
			// as an extracted Location header: `path: "{{order_url}}"`.
			r.d.errorf(e.path, "path: must start with / or a placeholder, got %q", s)
		case !fb.hasURL:
			r.d.errorf(e.path, "step %q: path needs the target's url to join onto", name)
		case fb.base != nil:
			prefix := fb.base.Scheme + "://" + fb.base.Host
			t, _ := sc.template(e.path, "path")
			sc.urlText[name] = prefix + s
			return prependLiteral(prefix, t)
		}
	case !fb.hasURL:
		r.d.errorf(e.node, "step %q: needs a path or a url (the target has no url)", name)
	default:
		sc.urlText[name] = fb.baseText
		return literalTemplate([]byte(fb.baseText))
	}
	return Template{}
}

var placeholderSyntax = regexp.MustCompile(`\{\{.*?\}\}`)

// placeholderFree stands a plain word in for every placeholder of s, so
// that the rest of a templated URL can be checked as a URL.
func placeholderFree(s string) string {
	return placeholderSyntax.ReplaceAllString(s, "x")
}

func prependLiteral(prefix string, t Template) Template {
	if len(t.Parts) > 0 && t.Parts[0].Kind == PartLiteral {
		t.Parts[0].Literal = append([]byte(prefix), t.Parts[0].Literal...)
		return t
	}
	t.Parts = append([]TemplatePart{{Kind: PartLiteral, Literal: []byte(prefix)}}, t.Parts...)
	return t
}

// stepHeaders lays a step's headers over its target's, as a request of a
// mix does: the result is every header the step sends, in order.
func (sc *flowScope) stepHeaders(kvs []pair, target []Header) []HeaderTemplate {
	r := sc.r
	var own []HeaderTemplate
	for _, kv := range kvs {
		name := kv.key.Value
		if !isToken(name) {
			r.d.errorf(kv.key, "headers: %q is not a valid header name", name)
			continue
		}
		r.used = r.used[:0]
		t, ok := sc.template(kv.val, "headers."+name)
		if !ok {
			continue
		}
		if secretHeader(name) && t.Static() {
			v := string(literalBytes(t))
			pieces := headerSecrets(name, v)
			r.d.secrets.add(pieces...)
			r.d.secrets.addUsed(r.used, pieces)
		} else if secretHeader(name) {
			// A templated credential ("Bearer {{token}}") is secret only
			// in the variables that went into it.
			r.d.secrets.add(r.used...)
		}
		if slices.ContainsFunc(t.Parts, func(p TemplatePart) bool {
			return p.Kind == PartLiteral && strings.ContainsAny(string(p.Literal), "\r\n\x00")
		}) {
			r.d.errorf(kv.val, "headers.%s: a header value cannot contain line breaks or NUL", name)
			continue
		}
		own = append(own, HeaderTemplate{Name: name, Value: t})
	}
	var out []HeaderTemplate
	for _, h := range target {
		if !slices.ContainsFunc(own, func(o HeaderTemplate) bool { return strings.EqualFold(o.Name, h.Name) }) {
			out = append(out, HeaderTemplate{Name: h.Name, Value: literalTemplate([]byte(h.Value))})
		}
	}
	return append(out, own...)
}

// extraction resolves one entry of a step's `extract:`.
func (r *resolver) extraction(x *rawExtract) (Extraction, bool) {
	name := x.key.Value
	out := Extraction{Var: name, Pos: r.d.pos(x.key)}
	if !x.ok {
		return out, false
	}
	switch {
	case !validVarName(name):
		r.d.errorf(x.key, "extract: %q is not a valid variable name (letters, digits and _, not starting with a digit)", name)
		return out, false
	case slices.Contains(placeholderNames, name):
		r.d.errorf(x.key, "extract: %q is the name of a built-in placeholder; pick another", name)
		return out, false
	}
	var set []pair
	for _, p := range []pair{x.json, x.header, x.regex} {
		if p.key != nil {
			set = append(set, p)
		}
	}
	switch {
	case len(set) == 0:
		r.d.errorf(x.node, "extract.%s: needs one of json, header or regex", name)
		return out, false
	case len(set) > 1:
		r.d.errorf(set[1].key, "extract.%s: set one of json, header or regex, not %d", name, len(set))
		return out, false
	case set[0].val == nil:
		return out, false
	}
	s, ok := r.text(set[0].val)
	if !ok {
		return out, false
	}
	switch set[0].key.Value {
	case "json":
		out.Kind, out.Path = ExtractJSON, s
		if strings.TrimSpace(s) == "" {
			r.d.errorf(set[0].val, "extract.%s.json: an empty path matches nothing; give the path of a field, such as access_token or items.0.id", name)
			return out, false
		}
	case "header":
		if !isToken(s) {
			r.d.errorf(set[0].val, "extract.%s.header: %q is not a valid header name", name, s)
			return out, false
		}
		out.Kind, out.Path = ExtractHeader, textproto.CanonicalMIMEHeaderKey(s)
	case "regex":
		re, err := regexp.Compile(s)
		switch {
		case err != nil:
			r.d.errorf(set[0].val, "extract.%s.regex: %v", name, err)
			return out, false
		case re.NumSubexp() < 1:
			r.d.errorf(set[0].val, "extract.%s.regex: %q has no capture group; the first group ( ) is the value taken", name, s)
			return out, false
		}
		out.Kind, out.Regex = ExtractRegex, re
	}
	return out, true
}
