package openapi

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// request is one operation as the scenario sends it. Its strings are
// final: escaped for the scenario, with placeholders where a flow reads
// a data column.
type request struct {
	name, method, path string // path: the operation's path with parameters filled, query included
	opPath             string // as the description writes it
	tags               []string
	headers            [][2]string
	body               string
	statuses           []int
	statusNote         string // why statuses is empty
	notes              []string
}

// skipped is an operation, webhook or callback the scenario cannot send.
type skipped struct{ what, why string }

// builder turns operations into requests.
type builder struct {
	doc       *v3.Document
	opts      Options
	templated bool     // the requests are flow steps: {{ }} is a placeholder
	data      *dataSet // where parameters without a value go; nil = guessed values
	auth      *auth
	names     map[string]bool
	skipped   []skipped
}

// requests lists the operations in the order of the description, those
// with none of opts.Tags left out.
func (b *builder) requests() []*request {
	var out []*request
	if b.doc.Paths != nil && b.doc.Paths.PathItems != nil {
		for path, item := range b.doc.Paths.PathItems.FromOldest() {
			if item == nil {
				continue
			}
			for method, op := range item.GetOperations().FromOldest() {
				if op == nil || !b.wanted(op) {
					continue
				}
				if r := b.request(strings.ToUpper(method), path, item, op); r != nil {
					out = append(out, r)
				}
			}
		}
	}
	b.unreachable()
	return out
}

func (b *builder) wanted(op *v3.Operation) bool {
	if len(b.opts.Tags) == 0 {
		return true
	}
	return slices.ContainsFunc(op.Tags, func(t string) bool { return slices.Contains(b.opts.Tags, t) })
}

// unreachable lists what the API sends, not receives: webhooks and
// callbacks.
func (b *builder) unreachable() {
	if b.doc.Webhooks != nil {
		for name := range b.doc.Webhooks.KeysFromOldest() {
			b.skipped = append(b.skipped, skipped{"webhook " + name, "the API calls it; loadgate sends requests, it does not receive them"})
		}
	}
}

func (b *builder) request(method, path string, item *v3.PathItem, op *v3.Operation) *request {
	label := method + " " + path
	if op.OperationId != "" {
		label += " (" + op.OperationId + ")"
	}
	if op.Callbacks != nil {
		for name := range op.Callbacks.KeysFromOldest() {
			b.skipped = append(b.skipped, skipped{"callback " + name + " of " + label, "the API calls it back; the operation itself is sent"})
		}
	}
	if !validToken(method) {
		b.skipped = append(b.skipped, skipped{label, "not an HTTP method"})
		return nil
	}
	if strings.ContainsRune(path, 0) {
		b.skipped = append(b.skipped, skipped{label, "the path holds a NUL"})
		return nil
	}
	r := &request{method: method, opPath: path, tags: op.Tags}
	params := effectiveParams(item, op)
	p, why := b.fill(r, path, params)
	if why == "" {
		why = b.requestBody(r, op)
	}
	if why != "" {
		b.skipped = append(b.skipped, skipped{label, why})
		return nil
	}
	r.path = p
	r.name = b.name(op.OperationId, method, path)
	b.auth.apply(r, op.Security, b.doc.Security)
	b.expect(r, op)
	if b.ownServers(item, op) {
		r.notes = append(r.notes, "the description gives this operation servers of its own; it is sent to the target's")
	}
	return r
}

// ownServers: the operation or its path names a server the document's
// servers (the targets, unless --server) do not.
func (b *builder) ownServers(item *v3.PathItem, op *v3.Operation) bool {
	var top []string
	for _, s := range b.doc.Servers {
		if s != nil {
			top = append(top, strings.TrimRight(s.URL, "/"))
		}
	}
	for _, s := range append(slices.Clone(item.Servers), op.Servers...) {
		if s != nil && (len(b.opts.Servers) > 0 || !slices.Contains(top, strings.TrimRight(s.URL, "/"))) {
			return true
		}
	}
	return false
}

// effectiveParams are the path item's parameters with the operation's
// laid over them (the same name and place replaces).
func effectiveParams(item *v3.PathItem, op *v3.Operation) []*v3.Parameter {
	var out []*v3.Parameter
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		if p == nil {
			continue
		}
		if i := slices.IndexFunc(out, func(q *v3.Parameter) bool { return q.Name == p.Name && strings.EqualFold(q.In, p.In) }); i >= 0 {
			out[i] = p
			continue
		}
		out = append(out, p)
	}
	return out
}

// nameChars are the characters a loadgate name may not hold.
var nameChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// name is the request's name: the operationId, else the method and a slug
// of the path (get-pets-petId), unique.
func (b *builder) name(id, method, path string) string {
	base := strings.Trim(nameChars.ReplaceAllString(id, "-"), "-.")
	if base == "" {
		slug := strings.Trim(nameChars.ReplaceAllString(path, "-"), "-.")
		base = strings.ToLower(method)
		if slug != "" {
			base += "-" + slug
		}
		base = strings.Trim(nameChars.ReplaceAllString(base, "-"), "-.")
		if base == "" {
			base = "operation"
		}
	}
	if len(base) > 80 {
		base = strings.TrimRight(base[:80], "-.")
	}
	name := base
	for n := 2; b.names[name]; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	b.names[name] = true
	return name
}

// expect takes the 2xx statuses the operation documents (3xx when it
// documents no 2xx).
func (b *builder) expect(r *request, op *v3.Operation) {
	if op.Responses == nil || op.Responses.Codes == nil || op.Responses.Codes.Len() == 0 {
		if op.Responses != nil && op.Responses.Default != nil {
			r.statusNote = "documents only a default response: any status 200-399 is accepted"
		} else {
			r.statusNote = "documents no response: any status 200-399 is accepted"
		}
		return
	}
	var ok, redirect []int
	ranged := false
	for code := range op.Responses.Codes.KeysFromOldest() {
		n, err := strconv.Atoi(code)
		switch {
		case err != nil && strings.EqualFold(code, "2XX"):
			ranged = true
		case err != nil:
		case n >= 200 && n < 300:
			ok = append(ok, n)
		case n >= 300 && n < 400:
			redirect = append(redirect, n)
		}
	}
	switch {
	case ranged:
		r.statusNote = "documents 2XX: any status 200-399 is accepted"
	case len(ok) > 0:
		r.statuses = ok
	case len(redirect) > 0:
		r.statuses = redirect
	default:
		r.statusNote = "documents no 2xx response: any status 200-399 is accepted"
	}
}

// fill writes the path with its parameters and the query, and adds the
// header and cookie parameters; why is set when it cannot be sent.
func (b *builder) fill(r *request, path string, params []*v3.Parameter) (string, string) {
	var query, cookies []string
	// A template variable no parameter declares is filled all the same.
	for _, m := range pathVar.FindAllStringSubmatch(path, -1) {
		if !slices.ContainsFunc(params, func(p *v3.Parameter) bool { return p.Name == m[1] && strings.EqualFold(p.In, "path") }) {
			params = append(params, &v3.Parameter{Name: m[1], In: "path"})
		}
	}
	for _, p := range params {
		switch strings.ToLower(p.In) {
		case "path":
			v, ok := b.paramValue(r, p, true)
			if !ok {
				return "", fmt.Sprintf("path parameter %s has no value the scenario can send", p.Name)
			}
			if !strings.Contains(path, "{"+p.Name+"}") {
				continue
			}
			path = strings.ReplaceAll(path, "{"+p.Name+"}", "\x00"+v+"\x00")
		case "query":
			if !required(p) && !hasExample(p) {
				continue
			}
			v, ok := b.paramValue(r, p, true)
			if !ok {
				continue
			}
			query = append(query, esc(url.QueryEscape(p.Name), b.templated)+"="+v)
		case "header":
			if !required(p) && !hasExample(p) || ignoredHeader(p.Name) || !validToken(p.Name) {
				continue
			}
			if v, ok := b.paramValue(r, p, false); ok {
				r.headers = append(r.headers, [2]string{p.Name, v})
			}
		case "cookie":
			if !required(p) && !hasExample(p) {
				continue
			}
			if v, ok := b.paramValue(r, p, false); ok {
				cookies = append(cookies, esc(p.Name, b.templated)+"="+v)
			}
		}
	}
	if len(cookies) > 0 {
		r.headers = append(r.headers, [2]string{"Cookie", strings.Join(cookies, "; ")})
	}
	out := escapePath(path, b.templated)
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(out, "?") {
			sep = "&"
		}
		out += sep + strings.Join(query, "&")
	}
	return out, ""
}

var pathVar = regexp.MustCompile(`\{([^{}\x00]+)\}`)

// escapePath percent-encodes the literal parts of a path; the parts
// between NULs are parameter values, already written.
func escapePath(path string, templated bool) string {
	parts := strings.Split(path, "\x00")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString(p)
			continue
		}
		u := url.URL{Path: p}
		b.WriteString(esc(u.EscapedPath(), templated))
	}
	out := b.String()
	if !strings.HasPrefix(out, "/") {
		out = "/" + out
	}
	return out
}

func required(p *v3.Parameter) bool { return p.Required != nil && *p.Required }

func hasExample(p *v3.Parameter) bool {
	if p.Example != nil || p.Examples != nil && p.Examples.Len() > 0 {
		return true
	}
	_, ok := newSampler().known(schemaOf(p.Schema))
	return ok
}

// ignoredHeader: OpenAPI says these header parameters are ignored; the
// request body and the security schemes set them.
func ignoredHeader(name string) bool {
	return slices.Contains([]string{"accept", "content-type", "authorization"}, strings.ToLower(name))
}

var tokenRe = regexp.MustCompile("^[!#%&'*+.^_`|~0-9A-Za-z-]+$")

func validToken(s string) bool { return tokenRe.MatchString(s) }
