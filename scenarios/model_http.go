package scenarios

import (
	"net/netip"
	"regexp"
	"time"
)

// HTTPTarget describes HTTP/1.1 or HTTP/2 load. Requests always holds at
// least one entry: a target written with a single `url:` gets one request
// of weight 1.
type HTTPTarget struct {
	Requests  []HTTPRequest
	Keepalive bool          // false = a new TCP connection per request
	Timeout   time.Duration // whole request, connect to last byte; default 30s
	MaxBody   int64         // bytes read of a response body before it counts as an error; default 10 MiB
	Expect    Expect
	TLS       TLS
	// HTTP2 speaks HTTP/2: over TLS negotiated with ALPN h2 for https://
	// URLs, cleartext with prior knowledge (h2c) for http:// URLs. It
	// implies Keepalive, which the scenario cannot turn off.
	HTTP2 bool
	// Connections is, with HTTP2, how many TCP connections carry the
	// workers' requests as concurrent streams (h2load -c); default 1. It
	// is 0 over HTTP/1.1, where every worker has its own connection.
	Connections int
	// Flow, when set, replaces Requests as what an iteration sends (SPEC
	// §12); Requests then holds one entry per step, named after it, so
	// that code which only lists a target's requests sees the steps.
	Flow *Flow
	// Proxy is the proxy URL for every request; "" = from HTTP_PROXY,
	// HTTPS_PROXY and NO_PROXY, as net/http reads them.
	Proxy string
	// LocalIPs are the source addresses the target's connections come
	// from, in turn (k6's --local-ips); empty: the kernel's choice. A
	// machine has as many ports to the target per source address, so
	// several of them hold more connections than one can.
	LocalIPs []netip.Addr
}

// HTTPRequest is one entry of a weighted request mix.
type HTTPRequest struct {
	Name    string // "" for the single request of a plain target
	Method  string // upper-case; default GET
	URL     string // absolute http:// or https:// URL
	Headers []Header
	Body    []byte
	Weight  int // ≥ 1; selection probability is Weight / sum of weights
}

// Expect holds per-response checks; a response failing one counts as an
// error of the kind named in each field's comment.
type Expect struct {
	Status       []int          // accepted status codes; empty = 200–399 (kind "status")
	BodyContains string         // substring the body must contain; "" = no check (kind "check")
	BodyRegex    *regexp.Regexp // nil = no check (kind "check")
	Length       int64          // exact body length in bytes; -1 = no check (kind "length")
}

// defaultMaxBody is how much of a response body an HTTP target reads
// when the scenario does not say, in bytes.
const defaultMaxBody = 10 << 20
