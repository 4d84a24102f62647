package http2

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/http2/hpack"

	"github.com/loadgate/loadgate/scenarios"
)

// headerBlock is the HPACK block of request r, encoded once: every field is
// either an entry of the static table or a literal that is never indexed,
// so the block depends on no connection's dynamic table and goes as it is
// over every connection, at the price of repeating its literals.
func headerBlock(u *url.URL, r *scenarios.HTTPRequest) []byte {
	authority := u.Host
	var fields []hpack.HeaderField
	agent := false
	for _, kv := range r.Headers {
		name := strings.ToLower(kv.Name)
		switch name {
		case "host":
			authority = kv.Value
			continue
		case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			// Connection-specific: HTTP/2 forbids them (RFC 9113 §8.2.2).
			continue
		case "user-agent":
			agent = true
		case "content-length":
			continue // this client says the body's length
		}
		fields = append(fields, hpack.HeaderField{Name: name, Value: kv.Value})
	}
	if !agent {
		fields = append(fields, hpack.HeaderField{Name: "user-agent", Value: "loadgate"})
	}
	switch {
	case len(r.Body) > 0, r.Method == "POST", r.Method == "PUT", r.Method == "PATCH":
		fields = append(fields, hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(r.Body))})
	}
	pseudo := []hpack.HeaderField{
		{Name: ":method", Value: r.Method},
		{Name: ":scheme", Value: u.Scheme},
		{Name: ":authority", Value: authority},
		{Name: ":path", Value: u.RequestURI()},
	}
	var block []byte
	for _, f := range append(pseudo, fields...) {
		block = append(block, encodeField(f)...)
	}
	return block
}

// encodeField encodes f as an index of the static table when it is there,
// as a literal never indexed otherwise.
func encodeField(f hpack.HeaderField) []byte {
	var b bytes.Buffer
	_ = hpack.NewEncoder(&b).WriteField(f) // a new encoder: its dynamic table is empty
	if b.Len() > 0 && b.Bytes()[0]&0x80 != 0 {
		return b.Bytes()
	}
	b.Reset()
	f.Sensitive = true
	_ = hpack.NewEncoder(&b).WriteField(f)
	return b.Bytes()
}
