package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/importers/emit"
)

var dashes = regexp.MustCompile(`-{2,}`)

// Weights of the mix: a guess that reads are more frequent than writes.
const readWeight, writeWeight = 3, 1

// emitter writes the scenario from the requests.
type emitter struct {
	opts    Options
	file    string
	title   string
	version string // the API's, from info
	oas     string // the description's OpenAPI version
	reqs    []*request
	servers []server
	dropped []string // servers not used, and why
	b       *builder
}

func (e *emitter) document() *yaml.Node {
	root := emit.NewMapping()
	root.Set("version", emit.Plain("1"))
	root.Set("name", emit.Str(e.scenarioName()))
	root.Set("description", emit.Str(esc(printable(e.description()), false)))
	vars := emit.LoadVars()
	for _, v := range e.b.auth.vars {
		vars.Set(v.name, flowMapping(emit.Str("value"), emit.Str(""), emit.Str("secret"), emit.Plain("true")), v.comment)
	}
	root.Set("vars", vars.N)
	if d := e.b.data; d != nil && len(d.cols) > 0 {
		data := emit.NewMapping()
		data.Set(dataSource, flowMapping(emit.Str("file"), emit.Str(e.opts.DataFile)),
			fmt.Sprintf("the path and query parameters without an example in the description (%s):", strings.Join(d.cols, ", ")),
			fmt.Sprintf("%s was written with a header row and one row of placeholders: replace them by real values, a row each", e.opts.DataFile))
		root.Set("data", data.N)
	}
	targets := e.targets()
	if notes := e.notes(); len(notes) > 0 {
		first := targets.Content[0]
		first.HeadComment = strings.TrimSuffix(emit.CommentText(notes)+"\n"+first.HeadComment, "\n")
	}
	root.Set("targets", targets)
	emit.SetLoad(root)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root.N}}
	var head []string
	if e.opts.SchemaURL != "" {
		head = append(head, "# yaml-language-server: $schema="+e.opts.SchemaURL)
	}
	head = append(head, fmt.Sprintf("# Imported from %s (OpenAPI %s, %s) by loadgate import openapi (docs/import.md).",
		e.file, e.oas, plural(len(e.reqs), "operation")))
	doc.HeadComment = emit.CommentText(head)
	return doc
}

func (e *emitter) scenarioName() string {
	if e.opts.Name != "" {
		return e.opts.Name
	}
	n := strings.Trim(dashes.ReplaceAllString(nameChars.ReplaceAllString(strings.ToLower(e.title), "-"), "-"), "-.")
	if len(n) > 40 {
		n = strings.TrimRight(n[:40], "-.")
	}
	if n == "" {
		return "openapi"
	}
	return n
}

func (e *emitter) description() string {
	d := strings.TrimSpace(e.title + " " + e.version)
	if d == "" {
		d = e.file
	}
	return d + ", imported from OpenAPI"
}

// notes go above the first target: what was left out and why, and what
// the import could not do for every request.
func (e *emitter) notes() []string {
	var out []string
	if len(e.b.skipped) > 0 {
		out = append(out, "not imported:")
		for _, s := range e.b.skipped {
			out = append(out, "  "+s.what+": "+s.why)
		}
	}
	out = append(out, e.dropped...)
	out = append(out, e.b.auth.notes...)
	if m := unsafeMethods(e.reqs); m != "" {
		out = append(out, m)
	}
	return out
}

func (e *emitter) targets() *yaml.Node {
	var out []*yaml.Node
	taken := map[string]bool{}
	for _, s := range e.servers {
		host := hostName(s.origin)
		if !e.opts.FlowPerTag {
			out = append(out, e.mixTarget(unique(host, taken), s))
			continue
		}
		for _, tag := range e.tags() {
			out = append(out, e.flowTarget(unique(host+"-"+tagSlug(tag), taken), tag, s))
		}
	}
	return emit.Seq(out...)
}

func (e *emitter) url(s server) *yaml.Node { return emit.Str(esc(s.origin+s.basePath, false)) }

// mixTarget sends every request in a weighted mix.
func (e *emitter) mixTarget(name string, s server) *yaml.Node {
	http := emit.NewMapping()
	http.Set("url", e.url(s))
	var entries []*yaml.Node
	var union []int
	var loose []string
	for _, r := range e.reqs {
		m := e.entry(r, s)
		w := writeWeight
		if r.method == "GET" || r.method == "HEAD" || r.method == "OPTIONS" {
			w = readWeight
		}
		m.Set("weight", emit.Plain(strconv.Itoa(w)))
		entries = append(entries, m.N)
		if len(r.statuses) == 0 {
			loose = append(loose, r.name+" "+r.statusNote)
		}
		for _, c := range r.statuses {
			if !slices.Contains(union, c) {
				union = append(union, c)
			}
		}
	}
	if len(loose) == 0 {
		slices.Sort(union)
		http.Set("expect", flowMapping(emit.Str("status"), ints(union)),
			"the success statuses the operations document (2xx, or 3xx where no 2xx): a mix has one expect for all its requests")
		http.Set("requests", emit.Seq(entries...), weightNote)
	} else {
		http.Set("requests", emit.Seq(entries...), append([]string{weightNote, "no expect: any status 200-399 is accepted, because"}, indent(loose)...)...)
	}
	return e.target(name, s, http)
}

const weightNote = "weights are a guess: 3 for a read (GET, HEAD, OPTIONS), 1 for a write; set them to the traffic expected"

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}

func (e *emitter) target(name string, s server, http emit.Mapping) *yaml.Node {
	t := emit.NewMapping()
	t.Set("name", emit.Str(name))
	t.Set("http", http.N)
	t.N.HeadComment = emit.CommentText(s.notes)
	return t.N
}

// entry is a request as a mix entry or a flow step.
func (e *emitter) entry(r *request, s server) emit.Mapping {
	m := emit.NewMapping()
	m.Set("name", emit.Str(r.name))
	if len(r.notes) > 0 {
		m.N.HeadComment = emit.CommentText(dedupe(r.notes))
	}
	if r.method != "GET" {
		m.Set("method", emit.Str(r.method))
	}
	m.Set("path", emit.Str(esc(s.basePath, e.b.templated)+r.path))
	if hs := headers(r.headers); hs != nil {
		m.Set("headers", hs)
	}
	if r.body != "" {
		m.Set("body", emit.Str(r.body))
	}
	return m
}

// headers writes each header once, the last given winning (a security
// scheme over a header parameter of the same name).
func headers(hs [][2]string) *yaml.Node {
	if len(hs) == 0 {
		return nil
	}
	m := emit.NewMapping()
	index := map[string]int{}
	for _, h := range hs {
		k := strings.ToLower(h[0])
		if i, ok := index[k]; ok {
			m.N.Content[i+1] = emit.Str(h[1])
			continue
		}
		index[k] = len(m.N.Content)
		m.Set(h[0], emit.Str(h[1]))
	}
	return m.N
}

// tags are the tags of the requests, in the order first used, for
// --flow-per-tag; "untagged" holds the operations without one.
func (e *emitter) tags() []string {
	var out []string
	for _, r := range e.reqs {
		for _, t := range tagsOf(r) {
			if (len(e.opts.Tags) == 0 || slices.Contains(e.opts.Tags, t) || t == "") && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func tagsOf(r *request) []string {
	if len(r.tags) == 0 {
		return []string{""}
	}
	return r.tags
}

func tagSlug(tag string) string {
	s := strings.Trim(nameChars.ReplaceAllString(strings.ToLower(tag), "-"), "-.")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-.")
	}
	if s == "" {
		return "untagged"
	}
	return s
}

// flowTarget sends the requests of one tag in order, each step checking
// its own statuses.
func (e *emitter) flowTarget(name, tag string, s server) *yaml.Node {
	http := emit.NewMapping()
	http.Set("url", e.url(s))
	var steps []*yaml.Node
	for _, r := range e.reqs {
		if !slices.Contains(tagsOf(r), tag) {
			continue
		}
		m := e.entry(r, s)
		if len(r.statuses) > 0 {
			m.Set("expect", flowMapping(emit.Str("status"), ints(r.statuses)))
		} else {
			m.N.HeadComment = strings.TrimPrefix(m.N.HeadComment+"\n"+emit.CommentText([]string{r.statusNote}), "\n")
		}
		steps = append(steps, m.N)
	}
	what := "the operations tagged " + strconv.Quote(tag)
	if tag == "" {
		what = "the operations without a tag"
	}
	http.Set("flow", emit.Seq(steps...), "one iteration sends "+what+", in the order of the description")
	return e.target(name, s, http)
}

func ints(vs []int) *yaml.Node {
	n := emit.Seq()
	n.Style = yaml.FlowStyle
	for _, v := range vs {
		n.Content = append(n.Content, emit.Plain(strconv.Itoa(v)))
	}
	return n
}

// unsafeMethods warns that a load test repeats what may change data.
func unsafeMethods(reqs []*request) string {
	methods := make([]string, len(reqs))
	for i, x := range reqs {
		methods[i] = x.method
	}
	return emit.UnsafeMethods(methods)
}

func dedupe(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
