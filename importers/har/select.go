package har

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// recording is the entries an import keeps, one target per origin, and
// what it left out.
type recording struct {
	entries  []harEntry
	targets  []*target
	assets   int
	origins  map[string]int // left out: other origins, by origin
	failed   int            // no response (blocked, cancelled)
	preflite int            // CORS preflights, which loadgate does not send
	other    []string       // not http(s), or not a request loadgate can send
}

// target is the steps of one origin, in recorded order.
type target struct {
	origin string
	steps  []*step
	// cookies are the cookies responses set that later steps send: a
	// cookie jar (cookies: true) carries them.
	cookies []string
	reused  []*reuse // extractions, in order of their source steps
	missed  []string // reused-looking values no earlier response holds
	notes   []string // what the target as a whole had to guess
	byValue map[string]*reuse
}

// assetTypes are Chromium's resource types of static assets.
var assetTypes = []string{"image", "stylesheet", "script", "font", "media", "manifest", "texttrack"}

// assetExts are the file extensions of static assets.
var assetExts = []string{".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".avif", ".bmp", ".css", ".js", ".mjs", ".map",
	".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp4", ".webm", ".mp3", ".wav", ".ogg", ".m4a", ".wasm"}

// isAsset: the entry fetched an image, style sheet, script, font or media.
func isAsset(e *harEntry, u *url.URL) bool {
	switch e.ResourceType {
	case "document", "xhr", "fetch", "eventsource", "websocket", "ping", "preflight":
		return false
	}
	if slices.Contains(assetTypes, e.ResourceType) {
		return true
	}
	mime := strings.ToLower(e.Response.Content.MimeType)
	for _, p := range []string{"image/", "text/css", "javascript", "ecmascript", "font/", "application/font", "application/x-font", "audio/", "video/", "application/wasm"} {
		if strings.Contains(mime, p) {
			return true
		}
	}
	return slices.Contains(assetExts, strings.ToLower(path.Ext(u.Path)))
}

// isPage: the entry is a document or an API call, whose origin is the
// page's.
func isPage(e *harEntry) bool {
	switch e.ResourceType {
	case "document", "xhr", "fetch":
		return true
	case "":
		mime := strings.ToLower(e.Response.Content.MimeType)
		return strings.Contains(mime, "html") || strings.Contains(mime, "json") || strings.Contains(mime, "xml")
	}
	return false
}

// selectEntries keeps the requests of the chosen origins, or of the page's
// origin, in order, assets only when asked.
func selectEntries(lg *harLog, origins []string, assets bool) *recording {
	rec := &recording{entries: lg.Entries, origins: map[string]int{}}
	type usable struct {
		i int
		u *url.URL
	}
	var list []usable
	for i := range lg.Entries {
		e := &lg.Entries[i]
		u, why := requestURL(e)
		switch {
		case why != "":
			rec.other = append(rec.other, fmt.Sprintf("entry %d: %s", i+1, why))
		case e.Response.Status < 100 || e.Response.Status > 599:
			rec.failed++
		case e.ResourceType == "preflight" || strings.EqualFold(e.Request.Method, "OPTIONS") && header(e.Request.Headers, "Access-Control-Request-Method") != "":
			rec.preflite++
		case !assets && isAsset(e, u):
			rec.assets++
		default:
			list = append(list, usable{i, u})
		}
	}
	if len(origins) == 0 && len(list) > 0 {
		first := list[0]
		for _, c := range list {
			if isPage(&lg.Entries[c.i]) {
				first = c
				break
			}
		}
		origins = []string{originOf(first.u)}
	}
	byOrigin := map[string]*target{}
	for _, c := range list {
		o := originOf(c.u)
		if !slices.Contains(origins, o) {
			rec.origins[o]++
			continue
		}
		t := byOrigin[o]
		if t == nil {
			t = &target{origin: o, byValue: map[string]*reuse{}}
			byOrigin[o] = t
			rec.targets = append(rec.targets, t)
		}
		t.steps = append(t.steps, newStep(c.i, &lg.Entries[c.i], c.u))
	}
	return rec
}

// requestURL is the entry's URL if loadgate can send its request, else why not.
func requestURL(e *harEntry) (*url.URL, string) {
	u, err := url.Parse(e.Request.URL)
	switch {
	case err != nil:
		return nil, "the URL cannot be read"
	case u.Scheme == "ws" || u.Scheme == "wss":
		return nil, "a WebSocket (" + u.Scheme + "://), not imported"
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Sprintf("a %s: URL, not sent over HTTP", u.Scheme)
	case u.Hostname() == "":
		return nil, "the URL has no host"
	case !isToken(e.Request.Method):
		return nil, fmt.Sprintf("the method %q is not an HTTP method", e.Request.Method)
	}
	if p := u.Port(); p != "" && (len(p) > 5 || p == "0" || strings.TrimLeft(p, "0123456789") != "" || atoi(p) > 65535) {
		return nil, fmt.Sprintf("the port %q is not a number from 1 to 65535", p)
	}
	return u, ""
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// isToken: s is an HTTP token, as a method or header name must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') && strings.IndexByte("!#$%&'*+-.^_`|~", c) < 0 {
			return false
		}
	}
	return true
}

// leftOut says what the import did not keep, "" for nothing.
func (r *recording) leftOut() string {
	var parts []string
	if r.assets > 0 {
		parts = append(parts, plural(r.assets, "static asset"))
	}
	if n := len(r.origins); n > 0 {
		var os []string
		total := 0
		for o, c := range r.origins {
			os = append(os, o)
			total += c
		}
		slices.Sort(os)
		parts = append(parts, fmt.Sprintf("%s to %s", plural(total, "request"), strings.Join(os, ", ")))
	}
	if r.failed > 0 {
		parts = append(parts, plural(r.failed, "request")+" without a response")
	}
	if r.preflite > 0 {
		parts = append(parts, plural(r.preflite, "CORS preflight"))
	}
	if len(r.other) > 0 {
		parts = append(parts, plural(len(r.other), "request")+" loadgate cannot send")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// hint says how to keep what was left out.
func (r *recording) hint() string {
	return "--include-assets keeps static assets, --origin URL the requests to another origin"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
