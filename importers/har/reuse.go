package har

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/loadgate/loadgate/importers/emit"
)

// reuse is an extraction: a value a step's response gave that later steps
// send, taken from the response by json, header or regex.
type reuse struct {
	name       string
	from       *step
	kind, spec string // "json", "header" or "regex", and its path, name or expression
	value      string
	usedBy     []use // where later steps send it
}

// use is where a step sends an extracted value.
type use struct{ where, step string }

// usedText says where the value is sent: "header Authorization of
// get-items and get-orders, the path of get-notes".
func (r *reuse) usedText() string {
	var wheres []string
	steps := map[string][]string{}
	for _, u := range r.usedBy {
		if _, ok := steps[u.where]; !ok {
			wheres = append(wheres, u.where)
		}
		steps[u.where] = emit.AppendNew(steps[u.where], u.step)
	}
	var parts []string
	for _, w := range wheres {
		s := steps[w]
		list := s[0]
		if len(s) > 1 {
			list = strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
		}
		parts = append(parts, w+" of "+list)
	}
	return strings.Join(parts, "; ")
}

// candidate is a value a request sends that may come from an earlier
// response, and where it stands.
type candidate struct {
	s        *step
	where    string // "the path", "header X-CSRF-Token", "query parameter q", "body field text"
	hint     string // the name beside the value, for deciding what looks reused
	value    string
	v        *val
	off, end int
	path     bool // the whole path and query, which a Location may give
}

// findReuse turns every reused-looking value of a step that an earlier
// step's response holds into an extraction on that step and a placeholder
// in this one; the cookies responses set become the jar's.
func (t *target) findReuse() {
	for i, s := range t.steps {
		t.carryCookies(i, s)
		cs := s.candidates()
		whole := false
		for _, c := range cs {
			switch {
			case c.path && !pathReused(cs):
				continue
			case whole && c.v == s.path:
				continue // a Location gave the whole path
			case !c.path && !reusedLooking(c), c.where != "the path" && typed(c.hint):
				continue
			}
			r, why := t.source(i, c)
			if r == nil {
				if why != "" || !c.path {
					t.missed = append(t.missed, missedText(c, why))
				}
				continue
			}
			raw := c.v.s[c.off:c.end]
			if c.v.replace(c.off, c.end, "{{"+r.name+"}}") {
				whole = whole || c.path
				r.usedBy = append(r.usedBy, use{c.where, s.name})
				if raw != r.value {
					s.notes = append(s.notes, "{{"+r.name+"}} is inserted as it is, where the recording had it percent-encoded")
				}
			}
		}
	}
}

// pathReused: a part of the path or query looks reused, so that a
// Location giving the whole of it is worth extracting.
func pathReused(cs []candidate) bool {
	for _, c := range cs {
		if !c.path && c.v == c.s.path && reusedLooking(c) {
			return true
		}
	}
	return false
}

// missedText says where a reused-looking value was sent: a credential
// by name only, as it becomes a secret variable; another value with
// its start.
func missedText(c candidate, why string) string {
	var out string
	if emit.SecretQuery(c.hint) || emit.SecretHeader(c.hint) {
		out = fmt.Sprintf("%s of %s (a credential: a secret variable)", c.where, c.s.name)
	} else {
		shown := c.value
		if len(shown) > 24 {
			shown = shown[:12] + "…"
		}
		out = fmt.Sprintf("%s of %s (%q)", c.where, c.s.name, shown)
	}
	if why != "" {
		out += ": " + why
	}
	return out
}

// carryCookies leaves to the cookie jar the cookies of s that an earlier
// step's response set; the others stay in its Cookie header.
func (t *target) carryCookies(i int, s *step) {
	if s.cookie == "" {
		return
	}
	var keep []string
	for _, part := range strings.Split(s.cookie, ";") {
		part = strings.TrimSpace(part)
		name, _, _ := strings.Cut(part, "=")
		if part == "" {
			continue
		}
		if t.setBefore(i, name) {
			t.cookies = emit.AppendNew(t.cookies, name)
			continue
		}
		keep = append(keep, part)
	}
	s.cookie = strings.Join(keep, "; ")
}

// setBefore: a step before the i-th set the cookie.
func (t *target) setBefore(i int, name string) bool {
	for _, p := range t.steps[:i] {
		for _, h := range p.e.Response.Headers {
			if strings.EqualFold(h.Name, "set-cookie") && strings.HasPrefix(strings.TrimSpace(h.Value), name+"=") {
				return true
			}
		}
		for _, c := range p.e.Response.Cookies {
			if c.Name == name {
				return true
			}
		}
	}
	return false
}

// candidates are the values of s that may come from earlier responses.
func (s *step) candidates() []candidate {
	var out []candidate
	p := s.path.s
	out = append(out, candidate{s: s, where: "the path", value: p, v: s.path, off: 0, end: len(p), path: true})
	q := strings.IndexByte(p, '?')
	pathEnd := len(p)
	if q >= 0 {
		pathEnd = q
		out = append(out, pairs(s, s.path, q+1, len(p), "query parameter")...)
	}
	off, prev := 0, ""
	for off < pathEnd {
		end := strings.IndexByte(p[off+1:pathEnd], '/')
		if end < 0 {
			end = pathEnd
		} else {
			end += off + 1
		}
		seg := p[off+1 : end]
		if dec, err := url.PathUnescape(seg); err == nil && seg != "" {
			out = append(out, candidate{s: s, where: "the path", hint: prev, value: dec, v: s.path, off: off + 1, end: end})
		}
		prev, off = seg, end
	}
	for _, h := range s.headers {
		v := h.value.s
		from := 0
		if scheme, cred, ok := strings.Cut(v, " "); ok && strings.Contains(strings.ToLower(h.name), "authorization") && isToken(scheme) {
			from = len(scheme) + 1
			v = cred
		}
		out = append(out, candidate{s: s, where: "header " + h.name, hint: h.name, value: v, v: h.value, off: from, end: len(h.value.s)})
	}
	if s.body != nil {
		switch ct := s.contentType(); {
		case strings.Contains(ct, "json") || ct == "" && isJSON(s.body.s):
			for _, l := range leaves(s.body.s) {
				if l.number && !idName(l.path[len(l.path)-1]) {
					continue
				}
				start, end := l.start, l.end
				if !l.number {
					start, end = start+1, end-1
					if s.body.s[start:end] != l.value {
						continue // escaped in the JSON: not replaced as text
					}
				}
				out = append(out, candidate{s: s, where: "body field " + gjsonPath(l.path), hint: l.path[len(l.path)-1], value: l.value, v: s.body, off: start, end: end})
			}
		case strings.Contains(ct, "x-www-form-urlencoded"):
			out = append(out, pairs(s, s.body, 0, len(s.body.s), "form field")...)
		}
	}
	return out
}

// pairs are the values of name=value&… in v.s[from:to].
func pairs(s *step, v *val, from, to int, what string) []candidate {
	var out []candidate
	for off := from; off < to; {
		end := strings.IndexByte(v.s[off:to], '&')
		if end < 0 {
			end = to
		} else {
			end += off
		}
		name, value, ok := strings.Cut(v.s[off:end], "=")
		if dec, err := url.QueryUnescape(value); ok && err == nil && value != "" {
			n, _ := url.QueryUnescape(name)
			out = append(out, candidate{s: s, where: what + " " + n, hint: n, value: dec, v: v, off: off + len(name) + 1, end: end})
		}
		off = end + 1
	}
	return out
}

// typed: a field of this name holds what a person typed, a password,
// never what a response gave.
func typed(name string) bool {
	return slices.Contains([]string{"pass", "password", "passwd", "pwd", "pw", "passphrase", "username", "user", "email", "login"}, strings.ToLower(name))
}

// idName: a field or parameter of this name holds an id or a token.
func idName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"id", "token", "csrf", "xsrf", "nonce", "session", "key", "ref", "uuid", "guid"} {
		if n == w || strings.HasSuffix(n, "_"+w) || strings.HasSuffix(n, "-"+w) || strings.HasPrefix(n, w+"_") || strings.Contains(n, w) && w != "id" && w != "ref" && w != "key" {
			return true
		}
	}
	return strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID")
}

var tokenLike = regexp.MustCompile(`^[A-Za-z0-9._~+/=:-]+$`)

// reusedLooking: the value looks made by the server (an id, a token)
// rather than typed: what a replay must take from a response.
func reusedLooking(c candidate) bool {
	v := c.value
	if v == "" || len(v) > 4096 || !tokenLike.MatchString(v) {
		return false
	}
	if idName(c.hint) {
		return true
	}
	if c.where == "the path" && strings.Trim(v, "0123456789") == "" {
		return true // a number in a path is an id
	}
	letters := strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	digits := strings.ContainsAny(v, "0123456789")
	return len(v) >= 6 && letters && digits
}

// source finds the value of c in the responses of the steps before the
// i-th, the latest first, and returns its extraction; or nil, with why
// when the value was seen where no extraction reads it.
func (t *target) source(i int, c candidate) (*reuse, string) {
	if r := t.byValue[c.value]; r != nil {
		return r, "" // extracted for an earlier step already
	}
	why := ""
	for j := i - 1; j >= 0; j-- {
		p := t.steps[j]
		kind, spec, name := p.locate(c)
		if kind == "cookie" {
			why = "it is the cookie " + spec + " set by " + p.name + ", which an extraction cannot read"
			continue
		}
		if kind == "" {
			continue
		}
		r := &reuse{name: t.varName(name), from: p, kind: kind, spec: spec, value: c.value}
		p.extract = append(p.extract, r)
		t.reused = append(t.reused, r)
		t.byValue[c.value] = r
		return r, ""
	}
	if c.path {
		return nil, ""
	}
	return nil, why
}

// reservedFlowNames are the placeholders a flow has without extracting.
var reservedFlowNames = []string{"now_ms", "seq", "worker", "uuid", "rand_int"}

// varName is a name for an extracted value not taken yet.
func (t *target) varName(hint string) string {
	base := emit.VarName(hint)
	if base == "secret" {
		base = "value"
	}
	taken := func(n string) bool {
		for _, r := range t.reused {
			if r.name == n {
				return true
			}
		}
		return slices.Contains(reservedFlowNames, n)
	}
	name := base
	for n := 2; taken(name); n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	return name
}
