package scenarios

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// How a target reaches its server, the same for every protocol: host:port
// addresses, http(s) URLs, the proxy, and when connections are opened.

// maxConnections bounds `connections:` of HTTP/2 and gRPC targets: each
// is a TCP connection held open for the whole phase.
const maxConnections = 10_000

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
		r.d.errorf(n, "%s: expected an absolute http:// or https:// URL, got %q", label, maskURL(s))
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
		r.d.errorf(n, "%s: %q has no host", label, maskURL(s))
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

// address resolves host:port. The host must be given: an empty one would
// dial the local machine by accident of the net package.
func (r *resolver) address(n *yaml.Node, label string) string {
	s, ok := r.text(n)
	if !ok {
		return ""
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		r.d.errorf(n, "%s: expected host:port, got %q", label, s)
		return ""
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		r.d.errorf(n, "%s: port %q is not a number from 1 to 65535", label, port)
		return ""
	}
	return s
}

// connection resolves `connection:` of a TCP or WebSocket target: when it
// opens connections. def is kept when the value is not one of them.
func (r *resolver) connection(n *yaml.Node, def TCPConnection) TCPConnection {
	s, ok := r.text(n)
	if !ok {
		return def
	}
	if c, known := findWord(connectionWords, s); known {
		return c
	}
	r.d.errorf(n, "connection: expected %s, got %q", expected(connectionWords), s)
	return def
}

// proxy resolves `proxy:`, the URL of an HTTP(S) or SOCKS5 proxy.
func (r *resolver) proxy(n *yaml.Node) string {
	s, ok := r.text(n)
	if !ok || s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err == nil {
		r.d.secrets.add(urlSecrets(u)...)
	}
	switch {
	case err != nil || u.Host == "":
		r.d.errorf(n, "proxy: expected a proxy URL such as http://proxy.example:3128, got %q", maskURL(s))
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5":
		r.d.errorf(n, "proxy: the scheme must be http, https or socks5, got %q", u.Scheme)
	default:
		return s
	}
	return ""
}
