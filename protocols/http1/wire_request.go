package http1

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"

	"github.com/loadgate/loadgate/scenarios"
)

// serialize writes request r as it goes on the wire: request line, Host,
// the scenario's headers in file order, then what the client adds. A Host
// header in the scenario replaces the URL's host (virtual hosts); the body
// framing headers are the client's own, since it knows the body. A large
// body is not copied (see maxInlineBody): every request serialised from r
// sends r.Body's own bytes.
func serialize(r *scenarios.HTTPRequest, keepalive bool) (http1Request, error) {
	u, err := url.Parse(r.URL)
	if err != nil {
		return http1Request{}, err
	}
	host := u.Host
	var b []byte
	hasUA, close := false, !keepalive
	for _, h := range r.Headers {
		switch {
		case strings.EqualFold(h.Name, "Host"):
			host = h.Value
			continue
		case strings.EqualFold(h.Name, "Content-Length"), strings.EqualFold(h.Name, "Transfer-Encoding"),
			strings.EqualFold(h.Name, "Trailer"):
			continue
		case strings.EqualFold(h.Name, "Connection"):
			if !keepalive {
				continue // replaced by Connection: close below
			}
			for tok := range strings.SplitSeq(h.Value, ",") {
				close = close || strings.EqualFold(strings.TrimSpace(tok), "close")
			}
		case strings.EqualFold(h.Name, "User-Agent"):
			hasUA = true
		case strings.EqualFold(h.Name, "Authorization"):
			u.User = nil // the scenario's header wins over URL credentials
		}
		b = append(b, h.Name...)
		b = append(b, ": "...)
		b = append(b, h.Value...)
		b = append(b, "\r\n"...)
	}
	if !hasUA {
		b = append(b, "User-Agent: loadgate\r\n"...)
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		b = append(b, "Authorization: Basic "...)
		b = append(b, base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))...)
		b = append(b, "\r\n"...)
	}
	switch r.Method {
	case "POST", "PUT", "PATCH":
		// Some servers refuse these without a length, even an empty one.
		b = appendContentLength(b, len(r.Body))
	default:
		if len(r.Body) > 0 {
			b = appendContentLength(b, len(r.Body))
		}
	}
	if !keepalive {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "\r\n"...)

	line := r.Method + " " + u.RequestURI() + " HTTP/1.1\r\nHost: " + host + "\r\n"
	inline := 0
	if len(r.Body) <= maxInlineBody {
		inline = len(r.Body)
	}
	wire := make([]byte, 0, len(line)+len(b)+inline)
	wire = append(append(wire, line...), b...)
	req := http1Request{head: r.Method == "HEAD", close: close}
	withBody(&req, wire, r.Body)
	return req, nil
}

func appendContentLength(b []byte, n int) []byte {
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "\r\n"...)
}

// minSegment is the least a TCP segment may carry: the default MSS of IPv4
// (RFC 9293), below IPv6's 1220.
const minSegment = 536

// oneSegment reports whether every request of reqs fits one TCP segment.
// Such a request leaves in one write, once the answer to the previous one
// has acknowledged it, so Nagle's algorithm, which holds back only data
// sent while earlier data is unacknowledged, never delays it: TCP_NODELAY
// would change nothing and costs a system call per connection.
func oneSegment(reqs []http1Request) bool {
	for i := range reqs {
		if reqs[i].size() > minSegment {
			return false
		}
	}
	return true
}
