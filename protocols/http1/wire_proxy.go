package http1

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/loadgate/loadgate/scenarios"
)

// proxyFor is the proxy that requests to u go through, or nil: the
// target's proxy: when set, else HTTP_PROXY, HTTPS_PROXY and NO_PROXY read
// as net/http reads them (loopback addresses never go through one).
func proxyFor(h *scenarios.HTTPTarget, u *url.URL) (*url.URL, error) {
	if h.Proxy != "" {
		p, err := url.Parse(h.Proxy)
		if err != nil {
			return nil, fmt.Errorf("proxy %q: %w", h.Proxy, err)
		}
		return p, nil
	}
	return http.ProxyFromEnvironment(&http.Request{URL: u})
}

// proxyFunc is proxyFor in the shape http.Transport wants.
func proxyFunc(h *scenarios.HTTPTarget) func(*http.Request) (*url.URL, error) {
	return func(r *http.Request) (*url.URL, error) { return proxyFor(h, r.URL) }
}

// proxyRoute is how the lean client reaches a server through an HTTP
// proxy: plain http requests go to the proxy in absolute form, https ones
// through a CONNECT tunnel opened once per connection.
type proxyRoute struct {
	addr string // the proxy's host:port
	auth string // the Proxy-Authorization value, "" for none
}

func newProxyRoute(p *url.URL) (*proxyRoute, error) {
	if p.Scheme != "http" {
		return nil, fmt.Errorf("proxy %s: only http:// proxies are supported", p.Redacted())
	}
	port := p.Port()
	if port == "" {
		port = "80"
	}
	r := &proxyRoute{addr: net.JoinHostPort(p.Hostname(), port)}
	if p.User != nil {
		pass, _ := p.User.Password()
		r.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(p.User.Username()+":"+pass))
	}
	return r, nil
}

// tunnel asks the proxy on conn for a tunnel to addr. It runs once per
// connection, so it may allocate.
func (r *proxyRoute) tunnel(conn net.Conn, addr string) error {
	req := "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if r.auth != "" {
		req += "Proxy-Authorization: " + r.auth + "\r\n"
	}
	if _, err := conn.Write([]byte(req + "\r\n")); err != nil {
		return fmt.Errorf("proxy %s: %w", r.addr, err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return fmt.Errorf("proxy %s: CONNECT %s: %w", r.addr, addr, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("proxy %s: CONNECT %s: %s", r.addr, addr, resp.Status)
	}
	if br.Buffered() > 0 {
		return fmt.Errorf("proxy %s: CONNECT %s: data before the tunnel's TLS handshake", r.addr, addr)
	}
	return nil
}
