package scenarios

import (
	"net/url"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxWeight keeps the sum of a mix's weights far from overflowing.
const maxWeight = 1_000_000

func (r *resolver) http(h *rawHTTP) *HTTPTarget {
	out := &HTTPTarget{Keepalive: true, Timeout: defaultTimeout, MaxBody: defaultMaxBody, Expect: Expect{Length: -1}}
	var base *url.URL
	var baseText string
	if h.url != nil {
		baseText, base = r.url(h.url, "url")
	}
	method := "GET"
	if h.method != nil {
		method = r.method(h.method)
	}
	headers := r.headers(h.headers)
	body := r.body(h)
	if h.keepalive != nil {
		out.Keepalive, _ = r.bool(h.keepalive, "keepalive")
	}
	if h.timeout != nil {
		out.Timeout = r.timeout(h.timeout, out.Timeout)
	}
	if h.maxBody != nil {
		if v, ok := r.size(h.maxBody, "max_body"); ok {
			if v <= 0 {
				r.d.errorf(h.maxBody, "max_body: must be greater than 0")
			}
			out.MaxBody = v
		}
	}
	r.transport(h, out)
	out.Expect = r.expect(&h.expect)
	if h.flowKey != nil || h.setupKey != nil {
		r.flowTarget(h, out, flowBase{h.url != nil, base, baseText, headers})
		return out
	}
	if h.cookies != nil {
		if v, ok := r.bool(h.cookies, "cookies"); ok && v {
			r.d.errorf(h.cookies, "cookies: a cookie jar carries cookies from one step of a flow to the next; this target has no flow")
		}
	}

	if h.requestsKey == nil {
		if h.url == nil {
			r.d.errorf(h.node, "http: missing required field %q", "url")
		}
		out.Requests = []HTTPRequest{{Method: method, URL: baseText, Headers: headers, Body: body, Weight: 1}}
		return out
	}
	if len(h.requests) == 0 {
		r.d.errorf(h.requestsKey, "requests: needs at least one entry")
	}
	seen := map[string]*yaml.Node{}
	for _, e := range h.requests {
		if !e.ok {
			continue
		}
		req := r.request(e, requestDefaults{h.url != nil, base, baseText, method, headers, body})
		if first, dup := seen[req.Name]; dup && req.Name != "" {
			r.d.errorf(e.name, "request %q is defined twice (first at line %d)", req.Name, first.Line)
		}
		seen[req.Name] = e.name
		out.Requests = append(out.Requests, req)
	}
	return out
}

// transport resolves how a target reaches its server: TLS, client
// certificate, proxy and protocol version.
func (r *resolver) transport(h *rawHTTP, out *HTTPTarget) {
	out.TLS = r.tls(&h.tls)
	if h.proxy != nil {
		out.Proxy = r.proxy(h.proxy)
	}
	if h.http2 != nil {
		out.HTTP2, _ = r.bool(h.http2, "http2")
	}
	r.http2(h, out)
	r.localIPs(h, out)
}

// localIPs resolves the source addresses of the target's connections.
func (r *resolver) localIPs(h *rawHTTP, out *HTTPTarget) {
	if h.localIPsKey == nil {
		return
	}
	if out.HTTP2 {
		r.d.errorf(h.localIPsKey, "local_ips: not supported with http2: true, whose few connections need no more than one source address's ports")
		return
	}
	if len(h.localIPs) == 0 {
		r.d.errorf(h.localIPsKey, "local_ips: needs at least one address")
		return
	}
	for _, n := range h.localIPs {
		s, ok := r.text(n)
		if !ok {
			continue
		}
		ips, err := ParseLocalIPs(s, MaxLocalIPs)
		if err != nil {
			r.d.errorf(n, "local_ips: %v", err)
			continue
		}
		if len(out.LocalIPs)+len(ips) > MaxLocalIPs {
			r.d.errorf(n, "local_ips: more than %d addresses in all", MaxLocalIPs)
			return
		}
		out.LocalIPs = append(out.LocalIPs, ips...)
	}
}

// http2 checks what HTTP/2 changes: connections are long-lived and shared
// by the workers as streams, so keepalive cannot be turned off and their
// number is the target's to say.
func (r *resolver) http2(h *rawHTTP, out *HTTPTarget) {
	if !out.HTTP2 {
		if h.connections != nil {
			r.d.errorf(h.connections, "connections: only with http2: true; over HTTP/1.1 every worker has its own connection")
		}
		return
	}
	out.Connections = 1
	if h.connections != nil {
		if v, ok := r.intIn(h.connections, "connections", 1, maxConnections); ok {
			out.Connections = int(v)
		}
	}
	if h.keepalive != nil && !out.Keepalive {
		r.d.errorf(h.keepalive, "keepalive: false cannot be combined with http2: true; HTTP/2 sends requests as streams over long-lived connections (set how many with connections:)")
		out.Keepalive = true
	}
	if h.proxy != nil && out.Proxy != "" {
		r.d.errorf(h.proxy, "proxy: not supported with http2: true; HTTP/2 connects to the server directly")
	}
}

// requestDefaults is what an entry of a `requests:` mix takes from its
// target when it does not say otherwise.
type requestDefaults struct {
	hasURL   bool // the target has a url, though perhaps an invalid one
	base     *url.URL
	baseText string
	method   string
	headers  []Header
	body     []byte
}

// request resolves one entry of a `requests:` mix. Fields it leaves out
// come from the target: url, method and body; its headers are merged over
// the target's.
func (r *resolver) request(e *rawRequest, def requestDefaults) HTTPRequest {
	out := HTTPRequest{Method: def.method, URL: def.baseText, Headers: def.headers, Body: def.body, Weight: 1}
	if e.name == nil {
		r.d.errorf(e.node, "request: missing required field %q", "name")
	} else {
		out.Name, _ = r.name(e.name, "name")
	}
	who := described("request", out.Name)
	if e.method != nil {
		out.Method = r.method(e.method)
	}
	switch {
	case e.url != nil && e.path != nil:
		r.d.errorf(e.path, "%s: set url or path, not both", who)
	case e.url != nil:
		out.URL, _ = r.url(e.url, "url")
	case e.path != nil:
		path, ok := r.text(e.path)
		switch {
		case !ok:
		case !strings.HasPrefix(path, "/"):
			r.d.errorf(e.path, "path: must start with /, got %q", path)
		case !def.hasURL:
			r.d.errorf(e.path, "%s: path needs the target's url to join onto", who)
		case def.base != nil:
			out.URL = def.base.Scheme + "://" + def.base.Host + path
		}
	case !def.hasURL:
		r.d.errorf(e.node, "%s: needs a url (the target has none)", who)
	}
	if len(e.headers) > 0 {
		out.Headers = mergeHeaders(def.headers, r.headers(e.headers))
	}
	if e.body != nil {
		s, _ := r.text(e.body)
		out.Body = []byte(s)
	}
	if e.weight != nil {
		w, _ := r.intIn(e.weight, "weight", 1, maxWeight)
		out.Weight = int(max(w, 1))
	}
	return out
}

// mergeHeaders lays over on top of base: a header of over replaces those
// of base with the same name, compared case-insensitively as HTTP does.
func mergeHeaders(base, over []Header) []Header {
	out := make([]Header, 0, len(base)+len(over))
	for _, h := range base {
		replaced := false
		for _, o := range over {
			replaced = replaced || strings.EqualFold(h.Name, o.Name)
		}
		if !replaced {
			out = append(out, h)
		}
	}
	return append(out, over...)
}

func (r *resolver) method(n *yaml.Node) string {
	s, ok := r.text(n)
	if !ok {
		return "GET"
	}
	if !isToken(s) {
		r.d.errorf(n, "method: %q is not a valid HTTP method", s)
		return "GET"
	}
	return strings.ToUpper(s)
}

func (r *resolver) body(h *rawHTTP) []byte {
	switch {
	case h.body != nil && h.bodyFile != nil:
		r.d.errorf(h.bodyFile, "http: set body or body_file, not both")
	case h.body != nil:
		s, _ := r.text(h.body)
		return []byte(s)
	case h.bodyFile != nil:
		if name, ok := r.text(h.bodyFile); ok {
			data, msg := r.d.readFile(name)
			if msg != "" && !r.d.judgeOnly {
				r.d.errorf(h.bodyFile, "body_file: cannot read %q: %s", name, msg)
			}
			return data
		}
	}
	return nil
}

func (r *resolver) expect(e *rawExpect) Expect {
	out := Expect{Length: -1}
	for _, n := range e.status {
		if v, ok := r.int(n, "status"); ok {
			if v < 100 || v > 599 {
				r.d.errorf(n, "status: %d is not an HTTP status code (100 to 599)", v)
				continue
			}
			out.Status = append(out.Status, int(v))
		}
	}
	if e.bodyContains != nil {
		out.BodyContains, _ = r.text(e.bodyContains)
	}
	if e.bodyRegex != nil {
		if s, ok := r.text(e.bodyRegex); ok {
			re, err := regexp.Compile(s)
			if err != nil {
				r.d.errorf(e.bodyRegex, "body_regex: %v", err)
			}
			out.BodyRegex = re
		}
	}
	if e.length != nil {
		if v, ok := r.intIn(e.length, "length", 0, 1<<62); ok {
			out.Length = v
		}
	}
	return out
}
