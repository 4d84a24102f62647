package scenarios

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Defaults of an HTTP target.
const (
	DefaultTimeout = 30 * time.Second
	DefaultMaxBody = 10 << 20 // bytes
)

// maxBodyFile bounds what body_file may load into memory, in bytes.
const maxBodyFile = 64 << 20

// maxWeight keeps the sum of a mix's weights far from overflowing.
const maxWeight = 1_000_000

func described(what, name string) string {
	if name == "" {
		return what
	}
	return fmt.Sprintf("%s %q", what, name)
}

// target resolves one target for one matrix combination.
func (r *resolver) target(t *rawTarget, name string) Target {
	out := Target{Name: name, Pos: r.d.pos(t.node)}
	switch {
	case t.http != nil:
		out.HTTP = r.http(t.http)
	case t.tcp != nil:
		out.TCP = r.tcp(t.tcp)
	case t.grpc != nil:
		out.GRPC = r.grpc(t.grpc)
	case t.websocket != nil:
		out.WebSocket = r.websocket(t.websocket)
	case t.ok && len(t.protos) == 0:
		r.d.errorf(t.node, "%s: needs one of http, tcp, grpc or websocket", described("target", name))
	}
	return out
}

func (r *resolver) http(h *rawHTTP) *HTTPTarget {
	out := &HTTPTarget{Keepalive: true, Timeout: DefaultTimeout, MaxBody: DefaultMaxBody, Expect: Expect{Length: -1}}
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
}

// tls resolves a `tls:` block, the same for every protocol.
func (r *resolver) tls(t *rawTLS) TLS {
	var out TLS
	if t.insecureSkipVerify != nil {
		out.InsecureSkipVerify, _ = r.bool(t.insecureSkipVerify, "insecure_skip_verify")
	}
	if t.caFile != nil {
		out.CAFile = r.caFile(t.caFile)
	}
	if t.resume != nil {
		resume, _ := r.bool(t.resume, "resume")
		out.NoResume = !resume
	}
	if t.postQuantum != nil {
		out.PostQuantum, _ = r.bool(t.postQuantum, "post_quantum")
	}
	r.clientCert(t, &out)
	if !out.NoResume {
		out.Sessions = NewSessionCache()
	}
	return out
}

// maxConnections bounds `connections:` of HTTP/2 and gRPC targets: each
// is a TCP connection held open for the whole phase.
const maxConnections = 10_000

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

// url resolves an absolute http(s) URL; it returns the text as written
// (after substitution) and its parsed form, nil when invalid.
func (r *resolver) url(n *yaml.Node, label string) (string, *url.URL) {
	r.used = r.used[:0]
	s, ok := r.text(n)
	if !ok {
		return "", nil
	}
	return r.checkURL(n, label, s)
}

// checkURL checks s, the value of n after substitution, as url does.
func (r *resolver) checkURL(n *yaml.Node, label, s string) (string, *url.URL) {
	u, err := url.Parse(s)
	if err == nil {
		pieces := urlSecrets(u)
		r.d.secrets.add(pieces...)
		r.d.secrets.addUsed(r.used, pieces)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		r.d.errorf(n, "%s: expected an absolute http:// or https:// URL, got %q", label, MaskURL(s))
		return "", nil
	}
	if !r.hostPort(n, label, s, u) {
		return "", nil
	}
	return s, u
}

// hostPort checks that URL u, written s, has a host and a valid port if
// any: the same rule as a TCP address, since a port the dialer would
// refuse, or one that makes every request fail at once, is a mistake to
// report now.
func (r *resolver) hostPort(n *yaml.Node, label, s string, u *url.URL) bool {
	if u.Hostname() == "" {
		r.d.errorf(n, "%s: %q has no host", label, MaskURL(s))
		return false
	}
	if port := u.Port(); port != "" || strings.HasSuffix(u.Host, ":") {
		if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
			r.d.errorf(n, "%s: port %q is not a number from 1 to 65535", label, port)
			return false
		}
	}
	return true
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

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the
// syntax of methods and header names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func (r *resolver) headers(kvs []pair) []Header {
	var out []Header
	for _, kv := range kvs {
		name := kv.key.Value
		if !isToken(name) {
			r.d.errorf(kv.key, "headers: %q is not a valid header name", name)
			continue
		}
		v, ok := r.headerValue(kv, name, "headers.%s: a header value cannot contain line breaks or NUL")
		if !ok {
			continue
		}
		out = append(out, Header{Name: name, Value: v})
	}
	return out
}

// headerValue resolves the value of a header (or of gRPC metadata) named
// name, whose credentials are secrets like its variables', and refuses a
// value that would break the request's framing: broken names that message,
// given the key as written.
func (r *resolver) headerValue(kv pair, name, broken string) (string, bool) {
	r.used = r.used[:0]
	v, ok := r.text(kv.val)
	if secretHeader(name) {
		pieces := headerSecrets(name, v)
		r.d.secrets.add(pieces...)
		r.d.secrets.addUsed(r.used, pieces)
	}
	if !ok {
		return "", false
	}
	if strings.ContainsAny(v, "\r\n\x00") {
		r.d.errorf(kv.val, broken, kv.key.Value)
		return "", false
	}
	return v, true
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

// readFile reads a file named relative to the scenario's directory, once
// however many matrix combinations use it. Only regular files are read, so
// a body_file of /dev/zero or a FIFO cannot hang or exhaust validation.
func (d *decoder) readFile(name string) ([]byte, string) {
	path := d.relPath(name)
	if res, ok := d.files[path]; ok {
		return res.data, res.err
	}
	data, err := readRegular(path)
	res := fileResult{data: data}
	if err != nil {
		res.data, res.err = nil, describeIOError(err)
	}
	d.files[path] = res
	return res.data, res.err
}

func readRegular(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBodyFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxBodyFile {
		return nil, fmt.Errorf("larger than %d MiB", maxBodyFile>>20)
	}
	return data, nil
}

// describeIOError drops the path from an *fs.PathError: the diagnostic
// shows the name as written in the scenario instead.
func describeIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (d *decoder) relPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(d.dir, name)
}

// caFile resolves ca_file relative to the scenario and checks that it
// exists, so a typo is found by `validate` rather than by the first request.
func (r *resolver) caFile(n *yaml.Node) string {
	name, ok := r.text(n)
	if !ok {
		return ""
	}
	path := r.d.relPath(name)
	if r.d.judgeOnly {
		return path
	}
	if info, err := os.Stat(path); err != nil {
		r.d.errorf(n, "ca_file: cannot read %q: %s", name, describeIOError(err))
	} else if !info.Mode().IsRegular() {
		r.d.errorf(n, "ca_file: cannot read %q: not a regular file", name)
	} else if data, err := os.ReadFile(path); err != nil {
		r.d.errorf(n, "ca_file: cannot read %q: %s", name, describeIOError(err))
	} else if !x509.NewCertPool().AppendCertsFromPEM(data) {
		// Found now rather than at the first request, where every request
		// would fail a handshake for a reason nobody could guess.
		r.d.errorf(n, "ca_file: %q holds no PEM certificate", name)
	}
	return path
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
