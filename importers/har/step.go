package har

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// step is one recorded request as the flow sends it.
type step struct {
	n       int // the entry's number in the file, from 1
	e       *harEntry
	u       *url.URL
	method  string
	name    string
	path    *val // path and query as recorded
	headers []hdr
	cookie  string // what the Cookie header sends beside the jar's cookies
	body    *val
	status  int // expected; 0 for none
	think   time.Duration
	extract []*reuse // extractions this step's response gives
	notes   []string

	read   bool   // response holds the recorded response, read once
	resp   string // the response body as text
	leaves []leaf // its JSON values, nil when it is not JSON
}

type hdr struct {
	name  string
	value *val
}

// val is a value as recorded, with the spans later replaced by a
// placeholder or a variable.
type val struct {
	s    string
	subs []sub
}

type sub struct {
	off, end int
	ref      string // {{name}} or ${name}
}

// replace makes s[off:end] ref, unless a replacement overlaps it.
func (v *val) replace(off, end int, ref string) bool {
	if slices.ContainsFunc(v.subs, func(s sub) bool { return s.off < end && off < s.end }) {
		return false
	}
	v.subs = append(v.subs, sub{off, end, ref})
	slices.SortFunc(v.subs, func(a, b sub) int { return a.off - b.off })
	return true
}

// replaced: some span of v is a placeholder or variable already.
func (v *val) replaced(off, end int) bool {
	return slices.ContainsFunc(v.subs, func(s sub) bool { return s.off < end && off < s.end })
}

// noise are the request headers a browser adds that a load test should
// not send as recorded: loadgate writes some itself, the others describe
// the browser, its caches or the page it came from.
var noise = []string{
	"host", "connection", "keep-alive", "proxy-connection", "content-length", "transfer-encoding", "te", "trailer",
	"upgrade", "expect", "user-agent", "accept-encoding", "accept-language", "upgrade-insecure-requests",
	"cache-control", "pragma", "dnt", "origin", "referer", "priority", "purpose", "x-client-data",
	"if-none-match", "if-modified-since", "cookie",
}

func isNoise(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, ":") || strings.HasPrefix(n, "sec-") || strings.HasPrefix(n, "proxy-") || slices.Contains(noise, n)
}

func newStep(i int, e *harEntry, u *url.URL) *step {
	s := &step{n: i + 1, e: e, u: u, method: strings.ToUpper(e.Request.Method)}
	s.path = &val{s: requestPath(e.Request.URL)}
	seen := map[string]int{}
	for _, h := range e.Request.Headers {
		switch {
		case strings.EqualFold(h.Name, "cookie"):
			s.cookie = joinCookie(s.cookie, h.Value)
		case isNoise(h.Name) || !isToken(h.Name):
		case strings.ContainsAny(h.Value, "\r\n\x00"):
			s.notes = append(s.notes, "the header "+h.Name+" holds a line break: left out")
		default:
			if j, ok := seen[strings.ToLower(h.Name)]; ok {
				s.headers[j].value.s += ", " + h.Value
				continue
			}
			seen[strings.ToLower(h.Name)] = len(s.headers)
			s.headers = append(s.headers, hdr{name: h.Name, value: &val{s: h.Value}})
		}
	}
	s.setBody(seen)
	switch st := e.Response.Status; st {
	case 304:
		s.notes = append(s.notes, "recorded 304 Not Modified, from the browser's cache; the conditional headers are left out, so no status is expected")
	default:
		s.status = st
	}
	return s
}

func joinCookie(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// requestPath is the path and query of a URL as written, "/" for none,
// with what cannot be one line of HTTP percent-encoded.
func requestPath(raw string) string {
	rest := raw[strings.Index(raw, "://")+3:]
	i := strings.IndexAny(rest, "/?#")
	if i < 0 {
		return "/"
	}
	p, _, _ := strings.Cut(rest[i:], "#")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// setBody takes the recorded body: its text, or, for a form recorded as
// parameters only, the form encoded again.
func (s *step) setBody(seen map[string]int) {
	pd := s.e.Request.PostData
	if pd == nil {
		return
	}
	text := pd.Text
	switch {
	case text != "":
	case slices.ContainsFunc(pd.Params, func(p harParam) bool { return p.FileName != "" }):
		s.notes = append(s.notes, "a file upload: the recording holds no file contents, so no body is sent")
		return
	case len(pd.Params) > 0:
		q := url.Values{}
		for _, p := range pd.Params {
			q.Add(p.Name, p.Value)
		}
		text = q.Encode()
		s.notes = append(s.notes, "the body was recorded as form parameters and is sent url-encoded")
	default:
		return
	}
	s.body = &val{s: text}
	if _, ok := seen["content-type"]; !ok && pd.MimeType != "" && isToken(strings.SplitN(pd.MimeType, "/", 2)[0]) && !strings.ContainsAny(pd.MimeType, "\r\n") {
		s.headers = append(s.headers, hdr{name: "Content-Type", value: &val{s: pd.MimeType}})
	}
}

// contentType is the step's Content-Type header, in lower case.
func (s *step) contentType() string {
	for _, h := range s.headers {
		if strings.EqualFold(h.name, "content-type") {
			return strings.ToLower(h.value.s)
		}
	}
	return ""
}

// thinkTimes makes the recorded pause between the end of each step's
// response and the start of the next request the step's think time.
func (t *target) thinkTimes(opts Options) {
	if opts.NoThink {
		return
	}
	capped := 0
	for i, s := range t.steps[:len(t.steps)-1] {
		end, ok1 := s.e.ended()
		next, ok2 := t.steps[i+1].e.started()
		if !ok1 || !ok2 {
			continue
		}
		gap := next.Sub(end).Round(time.Millisecond)
		if gap > opts.MaxThink {
			gap = opts.MaxThink
			capped++
		}
		if gap >= time.Millisecond {
			s.think = gap
		}
	}
	if capped > 0 {
		t.notes = append(t.notes, plural(capped, "recorded pause")+" longer than "+opts.MaxThink.String()+" shortened to it (--max-think)")
	}
}
