package har

import (
	"regexp"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// unreadHeaders are response headers whose value is never a reused value.
var unreadHeaders = []string{"set-cookie", "date", "location", "content-length", "content-type", "etag", "last-modified", "expires", "age", "vary", "server"}

// locate finds c's value in p's recorded response: the kind and spec of
// the extraction that reads it there and a name for it; kind "cookie"
// for a cookie's value (spec its name), "" when the response lacks it.
func (p *step) locate(c candidate) (kind, spec, name string) {
	resp := &p.e.Response
	if c.path {
		if loc := header(resp.Headers, "Location"); loc != "" && (loc == c.value || strings.HasSuffix(loc, "://"+p.u.Host+c.value) && strings.HasPrefix(c.value, "/")) && strings.HasPrefix(loc, "/") {
			return "header", "Location", "location"
		}
		return "", "", ""
	}
	for _, h := range resp.Headers {
		if !slices.Contains(unreadHeaders, strings.ToLower(h.Name)) && h.Value == c.value && isToken(h.Name) {
			return "header", h.Name, h.Name
		}
	}
	if kind, spec, name := p.bodyLocate(c); kind != "" {
		return kind, spec, name
	}
	for _, h := range resp.Headers {
		if strings.EqualFold(h.Name, "set-cookie") {
			name, value, _ := strings.Cut(strings.SplitN(h.Value, ";", 2)[0], "=")
			if strings.TrimSpace(value) == c.value {
				return "cookie", strings.TrimSpace(name), ""
			}
		}
	}
	return "", "", ""
}

// response is the recorded response body as text, and its JSON values
// when it is JSON, read once: every later step's values are looked for
// in it.
func (p *step) response() (string, []leaf) {
	if !p.read {
		p.read = true
		p.resp = p.e.Response.Content.body()
		if isJSON(p.resp) {
			p.leaves = leaves(p.resp)
		}
	}
	return p.resp, p.leaves
}

// bodyLocate finds c's value in p's recorded response body: at a JSON
// path, else by a regular expression.
func (p *step) bodyLocate(c candidate) (kind, spec, name string) {
	body, ls := p.response()
	if body == "" || !strings.Contains(body, c.value) {
		return "", "", ""
	}
	if ls != nil {
		var found *leaf
		for k := range ls {
			l := &ls[k]
			if l.value != c.value || len(l.path) == 0 {
				continue
			}
			if found == nil || strings.EqualFold(l.path[len(l.path)-1], c.hint) && !strings.EqualFold(found.path[len(found.path)-1], c.hint) {
				found = l
			}
		}
		if found != nil {
			path := gjsonPath(found.path)
			if gjson.Get(body, path).String() == c.value {
				return "json", path, found.path[len(found.path)-1]
			}
		}
	}
	if re, name := textRegex(body, c.value); re != "" {
		if name == "" {
			name = c.hint
		}
		return "regex", re, name
	}
	return "", "", ""
}

// attrBefore is the attribute whose value starts where the text ends.
var attrBefore = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_:-]*)\s*=\s*(["']?)$`)

// textRegex is a regular expression whose first group finds value in the
// text as recorded, and a name for it: for an HTML tag, by the tag's name,
// id or property attribute; else by the text just before the value.
func textRegex(text, value string) (string, string) {
	at := strings.Index(text, value)
	if at < 0 {
		return "", ""
	}
	if re, name := tagRegex(text, at, value); re != "" && check(re, text, value) {
		return re, name
	}
	from := max(0, at-40)
	if i := strings.LastIndexAny(text[from:at], "\n>"); i >= 0 {
		from += i + 1
	}
	prefix := strings.TrimLeft(text[from:at], " \t")
	if len(prefix) < 3 {
		return "", ""
	}
	re := regexp.QuoteMeta(prefix) + capture(text, at+len(value))
	if !check(re, text, value) {
		return "", ""
	}
	name := ""
	if m := attrBefore.FindStringSubmatch(prefix); m != nil && !slices.Contains([]string{"value", "content", "data"}, strings.ToLower(m[1])) {
		name = m[1]
	}
	return re, name
}

// capture is the group that takes the value: up to the quote that ends
// it, or a run of token characters.
func capture(text string, after int) string {
	if after < len(text) {
		switch text[after] {
		case '"':
			return `([^"]*)`
		case '\'':
			return `([^']*)`
		}
	}
	return `([A-Za-z0-9._~+/=:-]+)`
}

// identity are the attributes that name an HTML element.
var identity = regexp.MustCompile(`\b(name|id|property|http-equiv)\s*=\s*(["'])([^"'<>]+)(["'])`)

// tagRegex finds value in the attribute of an HTML tag that a name, id or
// property attribute identifies: <input name="csrf_token" value="…">.
func tagRegex(text string, at int, value string) (string, string) {
	lt := strings.LastIndexByte(text[:at], '<')
	gt := strings.IndexByte(text[at:], '>')
	if lt < 0 || gt < 0 || at-lt > 512 || strings.ContainsAny(text[lt+1:at], "<>") {
		return "", ""
	}
	tag := text[lt : at+gt+1]
	m := attrBefore.FindStringSubmatch(text[lt:at])
	if m == nil || m[2] == "" {
		return "", ""
	}
	elem := regexp.MustCompile(`^<([A-Za-z][A-Za-z0-9-]*)`).FindStringSubmatch(tag)
	if elem == nil {
		return "", ""
	}
	for _, id := range identity.FindAllStringSubmatchIndex(tag, -1) {
		idName, idValue := tag[id[2]:id[3]], tag[id[6]:id[7]]
		if strings.EqualFold(idName, m[1]) || idValue == value {
			continue
		}
		q := m[2]
		group := `([^` + q + `]*)`
		valueAttr := `\b` + regexp.QuoteMeta(m[1]) + `\s*=\s*` + q + group + q
		idAttr := `\b` + idName + `\s*=\s*["']` + regexp.QuoteMeta(idValue) + `["']`
		re := `<` + elem[1] + `\b[^>]*` + idAttr + `[^>]*` + valueAttr
		if id[0] > at-lt {
			re = `<` + elem[1] + `\b[^>]*` + valueAttr + `[^>]*` + idAttr
		}
		return re, idValue
	}
	return "", ""
}

// check: re's first group finds value in text.
func check(re, text, value string) bool {
	r, err := regexp.Compile(re)
	if err != nil || r.NumSubexp() < 1 {
		return false
	}
	m := r.FindStringSubmatch(text)
	return m != nil && m[1] == value
}
