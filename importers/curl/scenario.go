package curl

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/importers/emit"
)

// document is the whole scenario: one target that sends the request, or,
// for several commands, a flow that sends them in order.
func (e *emitter) document() *yaml.Node {
	e.shellVars()
	first := e.reqs[0]
	name := e.opts.Name
	if name == "" {
		name = emit.HostName(first.u.Hostname())
	}
	target := emit.NewMapping()
	target.Set("name", emit.Str(emit.HostName(first.u.Hostname())))
	var notes []string
	if len(e.reqs) == 1 {
		target.Set("http", e.single(first))
		notes = first.notes
	} else {
		http, flowNotes := e.flow()
		target.Set("http", http)
		notes = flowNotes
	}
	notes = append(notes, ignoredNotes(e.reqs)...)
	if n := unsafeMethods(e.reqs); n != "" {
		notes = append(notes, n)
	}

	root := emit.NewMapping()
	root.Set("version", emit.Plain("1"))
	root.Set("name", emit.Str(name))
	root.Set("description", emit.Str(emit.Escape(description(e.reqs), false, false)))
	vars := emit.LoadVars()
	targets := emit.Seq(target.N)
	if len(notes) > 0 {
		targets.Content[0].HeadComment = emit.Comments(notes)
	}
	// The variables are known once the targets were written.
	for _, v := range e.vars {
		val := emit.Str("")
		if v.secret {
			val = emit.Flow("value", `""`, "secret", "true")
			val.Content[1] = emit.Str("")
		}
		vars.Set(v.name, val, v.comment)
	}
	root.Set("vars", vars.N)
	root.Set("targets", targets)
	emit.SetLoad(root)

	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root.N}}
	var head []string
	if e.opts.SchemaURL != "" {
		head = append(head, "# yaml-language-server: $schema="+e.opts.SchemaURL)
	}
	head = append(head, fmt.Sprintf("# Imported from %s by loadgate import curl (docs/import.md).", plural(len(e.reqs), "curl command")))
	doc.HeadComment = emit.CommentText(head)
	return doc
}

// single is the http: block of a target that sends one request.
func (e *emitter) single(b *built) *yaml.Node {
	m := emit.NewMapping()
	m.Set("url", emit.Str(e.text(b.full, false)))
	if b.method != "GET" {
		m.Set("method", emit.Str(b.method))
	}
	if hs := e.headers(b.headers, false); hs != nil {
		m.Set("headers", hs)
	}
	e.body(m, b, false)
	e.transport(m, []*built{b})
	return m.N
}

func (e *emitter) headers(hs []header, templated bool) *yaml.Node {
	if len(hs) == 0 {
		return nil
	}
	m := emit.NewMapping()
	for _, h := range hs {
		m.Set(h.name, emit.Str(e.text(h.value, templated)))
	}
	return m.N
}

func (e *emitter) body(m emit.Mapping, b *built, templated bool) {
	switch {
	case b.bodyFile != "":
		m.Set("body_file", emit.Str(emit.Escape(b.bodyFile, false, false)))
	case b.body != nil:
		m.Set("body", emit.Str(e.text(*b.body, templated)))
	}
}

// transport writes what the target's connections need: TLS without
// verification (-k), HTTP/2, the timeout (-m). They belong to the
// target, so a flow has them when any of its commands asked.
func (e *emitter) transport(m emit.Mapping, reqs []*built) []string {
	var notes []string
	count := func(f func(r *request) bool) int {
		n := 0
		for _, b := range reqs {
			if f(b.r) {
				n++
			}
		}
		return n
	}
	some := func(n int, what string) {
		if n > 0 && n < len(reqs) {
			notes = append(notes, fmt.Sprintf("%s was given to %d of the %d curl commands; it applies to every step", what, n, len(reqs)))
		}
	}
	if n := count(func(r *request) bool { return r.insecure }); n > 0 {
		m.Set("tls", emit.Flow("insecure_skip_verify", "true"))
		some(n, "-k")
	}
	if n := count(func(r *request) bool { return r.http2 }); n > 0 {
		m.Set("http2", emit.Plain("true"))
		some(n, "--http2")
		if count(func(r *request) bool { return r.http2 && !r.priorKnowledge }) > 0 && reqs[0].u.Scheme == "http" {
			notes = append(notes, "--http2 over http://: curl asks the server to upgrade; loadgate speaks HTTP/2 with prior knowledge (h2c)")
		}
	}
	var timeout int64
	for _, b := range reqs {
		timeout = max(timeout, int64(b.r.timeout))
	}
	if timeout > 0 {
		m.Set("timeout", emit.Plain(durationText(timeout)))
		some(count(func(r *request) bool { return r.timeout > 0 }), "-m")
	}
	if len(reqs) == 1 {
		reqs[0].notes = append(reqs[0].notes, notes...)
	}
	return notes
}

func description(reqs []*built) string {
	b := reqs[0]
	d := b.method + " " + maskedURL(b)
	if len(reqs) > 1 {
		d += fmt.Sprintf(" and %s", plural(len(reqs)-1, "more request"))
	}
	return d + ", imported from curl"
}

// maskedURL is the URL for the description as written, without its
// query, which may hold what the variables keep out of the file.
func maskedURL(b *built) string {
	u, _, _ := strings.Cut(b.full.Text, "?")
	return u
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ignoredNotes lists the options that were ignored, with what the
// scenario does instead where that matters.
func ignoredNotes(reqs []*built) []string {
	var names []string
	for _, b := range reqs {
		for _, n := range b.r.ignored {
			names = emit.AppendNew(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	var shown, why []string
	for _, n := range names {
		s := displayName(longOption(n))
		shown = append(shown, s)
		if w := ignoredWhy[n]; w != "" {
			why = append(why, s+": "+w)
		}
	}
	return append([]string{"curl options ignored: " + strings.Join(shown, ", ")}, why...)
}

// unsafeMethods warns that a load test repeats what may change data.
func unsafeMethods(reqs []*built) string {
	methods := make([]string, len(reqs))
	for i, x := range reqs {
		methods[i] = x.method
	}
	return emit.UnsafeMethods(methods)
}

// flow is the http: block of a target whose flow sends every command's
// request in order. The target's url is the first request's origin; a
// step to the same origin gives its path, any other its whole URL.
func (e *emitter) flow() (*yaml.Node, []string) {
	first := e.reqs[0]
	m := emit.NewMapping()
	m.Set("url", emit.Str(emit.Escape(origin(first), false, false)))
	notes := e.transport(m, e.reqs)
	var steps []*yaml.Node
	names := map[string]bool{}
	for _, b := range e.reqs {
		st := emit.NewMapping()
		st.Set("name", emit.Str(stepName(b, names)))
		if b.method != "GET" {
			st.Set("method", emit.Str(b.method))
		}
		if strings.EqualFold(origin(b), origin(first)) {
			path := slice(b.full, b.authEnd, len(b.full.Text))
			if !strings.HasPrefix(path.Text, "/") {
				path = join(lit("/"), path)
			}
			st.Set("path", emit.Str(e.text(path, true)))
		} else {
			st.Set("url", emit.Str(e.text(b.full, true)))
		}
		if hs := e.headers(b.headers, true); hs != nil {
			st.Set("headers", hs)
		}
		e.body(st, b, true)
		if len(b.notes) > 0 {
			st.N.HeadComment = emit.Comments(b.notes)
		}
		steps = append(steps, st.N)
	}
	m.Set("flow", emit.Seq(steps...), "one iteration sends these steps in order, as the curl commands were given")
	return m.N, notes
}

// origin is the scheme and host of b's URL as written.
func origin(b *built) string { return b.full.Text[:b.authEnd] }

// stepName names a step after its method and the last part of its path
// (post-orders), unique within the flow.
func stepName(b *built, taken map[string]bool) string {
	segs := strings.Split(strings.Trim(b.u.Path, "/"), "/")
	base := strings.ToLower(b.method)
	if last := emit.HostName(segs[len(segs)-1]); segs[len(segs)-1] != "" && last != "imported" && last != "local" {
		base += "-" + last
	}
	name := base
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	taken[name] = true
	return name
}

func durationText(ns int64) string { return time.Duration(ns).String() }
