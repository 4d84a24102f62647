package openapi

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/loadgate/loadgate/scenarios"
)

// defaultBase is what relative server URLs are resolved against when
// --base-url is not given: loadgate's own server, so that nothing real is
// loaded by accident.
const defaultBase = "http://127.0.0.1:8080"

// server is one target's base: the scheme and host, and the path the
// operations' paths are joined to.
type server struct {
	origin, basePath string
	notes            []string
}

// servers are the targets' bases: --server, else the description's
// servers, else "/" as OpenAPI says; variables take their defaults and
// relative URLs are resolved against the base URL.
func servers(doc *v3.Document, opts Options) ([]server, []string, error) {
	type raw struct {
		url  string
		vars map[string]string
	}
	var list []raw
	if len(opts.Servers) > 0 {
		for _, s := range opts.Servers {
			list = append(list, raw{url: s})
		}
	} else {
		for _, s := range doc.Servers {
			if s == nil {
				continue
			}
			vars := map[string]string{}
			if s.Variables != nil {
				for k, v := range s.Variables.FromOldest() {
					if v != nil {
						vars[k] = v.Default
					}
				}
			}
			list = append(list, raw{url: s.URL, vars: vars})
		}
	}
	if len(list) == 0 {
		list = []raw{{url: "/"}}
	}
	base := opts.BaseURL
	if base == "" {
		base = defaultBase
	}
	var out []server
	var dropped []string
	seen := map[string]bool{}
	for _, r := range list {
		s, err := resolveServer(r.url, r.vars, base, opts.BaseURL == "")
		if err != nil {
			if len(opts.Servers) > 0 {
				return nil, nil, fmt.Errorf("--server %s: %w", r.url, err)
			}
			dropped = append(dropped, fmt.Sprintf("server %s is not used: %v", r.url, err))
			continue
		}
		if key := s.origin + s.basePath; !seen[key] {
			seen[key] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("no server URL to send to (%s): give one with --server URL", strings.Join(dropped, "; "))
	}
	return out, dropped, nil
}

func resolveServer(raw string, vars map[string]string, base string, defaulted bool) (server, error) {
	var s server
	text := raw
	for k, v := range vars {
		text = strings.ReplaceAll(text, "{"+k+"}", v)
	}
	if text != raw {
		s.notes = append(s.notes, fmt.Sprintf("server %s with its variables' defaults", raw))
	}
	if strings.ContainsAny(text, "{}") {
		return s, fmt.Errorf("a variable in it has no default")
	}
	u, err := url.Parse(text)
	if err != nil {
		return s, fmt.Errorf("not a URL: %w", err)
	}
	if !u.IsAbs() {
		b, err := url.Parse(base)
		if err != nil || !b.IsAbs() || b.Host == "" {
			return s, fmt.Errorf("the base URL %q is not an absolute URL", base)
		}
		u = b.ResolveReference(u)
		if defaulted {
			s.notes = append(s.notes, fmt.Sprintf("the server URL %s is relative: resolved against %s; --base-url imports it for another host", raw, base))
		} else {
			s.notes = append(s.notes, fmt.Sprintf("the server URL %s is relative: resolved against --base-url %s", raw, base))
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return s, fmt.Errorf("scheme %q: loadgate sends http:// and https://", u.Scheme)
	}
	if u.Hostname() == "" {
		return s, fmt.Errorf("it names no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return s, fmt.Errorf("port %q is not 1-65535", p)
		}
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if u.Port() != "" {
		host = net.JoinHostPort(u.Hostname(), u.Port())
	}
	s.origin = u.Scheme + "://" + host
	s.basePath = strings.TrimRight(u.EscapedPath(), "/")
	return s, nil
}

// hostName is the name of a target after its server's host: "local"
// for localhost or an address.
func hostName(origin string) string {
	if u, err := url.Parse(origin); err == nil {
		if n, ok := scenarios.NameOfHost(u.Hostname()); ok {
			return n
		}
	}
	return "local"
}

// unique is base, or base-2, base-3… when base is taken.
func unique(base string, taken map[string]bool) string {
	name := base
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	taken[name] = true
	return name
}
