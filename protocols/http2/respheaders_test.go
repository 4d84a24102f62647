package http2

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/protocols/httpflow"
)

// encodeBlock is the HPACK header block of a 200 response with fields.
func encodeBlock(fields ...hpack.HeaderField) []byte {
	var b bytes.Buffer
	enc := hpack.NewEncoder(&b)
	_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	for _, f := range fields {
		_ = enc.WriteField(f)
	}
	return b.Bytes()
}

// manyFields is n fields x-f-0… of a value of size digits.
func manyFields(n, size int) []hpack.HeaderField {
	fs := make([]hpack.HeaderField, n)
	for i := range fs {
		fs[i] = hpack.HeaderField{Name: fmt.Sprintf("x-f-%d", i), Value: strings.Repeat(fmt.Sprint(i%10), size)}
	}
	return fs
}

// writeBlock writes block as the response headers of stream id, in
// frames of the default size, ending the stream.
func writeBlock(fr *http2.Framer, id uint32, block []byte) {
	first := block[:min(len(block), 16384)]
	rest := block[len(first):]
	if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: true, EndHeaders: len(rest) == 0}) != nil {
		return
	}
	for len(rest) > 0 {
		n := min(len(rest), 16384)
		if fr.WriteContinuation(id, n == len(rest), rest[:n]) != nil {
			return
		}
		rest = rest[n:]
	}
}

// conns counts the connections a raw server answered on, by their framer.
type conns struct {
	mu   sync.Mutex
	seen map[*http2.Framer]bool
}

func (c *conns) add(fr *http2.Framer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[*http2.Framer]bool{}
	}
	c.seen[fr] = true
}

func (c *conns) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// A response header block beyond httpcheck.MaxHeaderBytes fails as over
// HTTP/1.1: "headers too large", kind protocol. Each server answers the
// first request with the block and the second with a small one; a block
// too large as sent closes its connection, one too large only once
// decoded (a flow step keeps the fields) fails its stream alone.
func TestResponseHeaderLimit(t *testing.T) {
	small := encodeBlock(hpack.HeaderField{Name: "x-ok", Value: "1"})
	repeated := make([]hpack.HeaderField, 25) // indexed after the first: 75 KB decoded from 3 KB sent
	for i := range repeated {
		repeated[i] = hpack.HeaderField{Name: "x-big", Value: strings.Repeat("r", 3000)}
	}
	for _, tc := range []struct {
		name  string
		block []byte
		// fail: the first request fails as too large, by the plain client
		// (which decodes only :status) and by a flow step keeping the
		// fields; conns: the connections the two requests took.
		fail, failKept   bool
		conns, connsKept int
	}{
		{"within the limit", encodeBlock(manyFields(400, 80)...), false, false, 1, 1},
		{"many fields beyond it", encodeBlock(manyFields(1000, 100)...), true, true, 2, 2},
		{"one field beyond it", encodeBlock(hpack.HeaderField{Name: "x-huge", Value: strings.Repeat("h", 100<<10)}), true, true, 2, 2},
		// Fields the plain client does not decode cost it nothing: only
		// their size as sent counts.
		{"beyond it once decoded", encodeBlock(repeated...), false, true, 1, 1},
	} {
		if len(tc.block) > httpcheck.MaxHeaderBytes != (tc.conns == 2) {
			t.Fatalf("%s: a %d-byte block: the rows assume otherwise", tc.name, len(tc.block))
		}
		for _, kept := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, fields kept %v", tc.name, kept), func(t *testing.T) {
				var seen conns
				var mu sync.Mutex
				answered := 0
				addr := rawH2Server(t, func(fr *http2.Framer, id uint32) {
					seen.add(fr)
					mu.Lock()
					answered++
					first := answered == 1
					mu.Unlock()
					if first {
						writeBlock(fr, id, tc.block)
					} else {
						writeBlock(fr, id, small)
					}
				})
				send := newSender(t, "http://"+addr, kept)
				wantFail, wantConns := tc.fail, tc.conns
				if kept {
					wantFail, wantConns = tc.failKept, tc.connsKept
				}
				first, second := send(), send()
				switch {
				case wantFail && (first.Kind != protocols.KindProtocol || first.Err == nil ||
					first.Err.Error() != "http/2 response: headers too large"):
					t.Errorf("first request: kind %v, err %v; want protocol, http/2 response: headers too large", first.Kind, first.Err)
				case !wantFail && (first.Kind != protocols.KindNone || first.Status != 200):
					t.Errorf("first request: kind %v status %d (%v), want 200", first.Kind, first.Status, first.Err)
				}
				if second.Kind != protocols.KindNone || second.Status != 200 {
					t.Errorf("second request: kind %v status %d (%v), want 200", second.Kind, second.Status, second.Err)
				}
				if got := seen.count(); got != wantConns {
					t.Errorf("%d connections, want %d", got, wantConns)
				}
			})
		}
	}
}

// newSender sends one GET of url per call, from a plain client or from a
// flow step that keeps the response's header fields.
func newSender(t *testing.T, url string, kept bool) func() protocols.Outcome {
	t.Helper()
	if !kept {
		cl, err := NewClient(h2Target(url+"/", 1), 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cl.Close() })
		return func() protocols.Outcome { return do(t, cl, 0) }
	}
	tg := flowTarget(url)
	p, err := NewPool(tg)
	if err != nil {
		t.Fatal(err)
	}
	tr := newStepTransport(p, 0, true)
	t.Cleanup(func() { _ = tr.Close() })
	check := httpcheck.NewResponseCheck(tg.HTTP)
	return func() protocols.Outcome {
		var head []byte
		r := &httpflow.StepRequest{Origin: url, Method: "GET", Authority: strings.TrimPrefix(url, "http://"),
			Path: []byte("/a"), Check: check, Head: &head}
		var out protocols.Outcome
		tr.Exchange(context.Background(), r, &out)
		return out
	}
}

// A server that sends a header block of 16 MiB in CONTINUATION frames
// is cut off after the limit: the request fails as too large, and the
// client closes the connection, so the server's writes fail long before
// the 16 MiB are out (loopback buffers hold a few MiB).
func TestResponseHeaderFlood(t *testing.T) {
	const flood = 16 << 20
	field := encodeBlock(manyFields(1, 100)...)[1:] // one literal field, without :status
	frag := bytes.Repeat(field, 16000/len(field))
	wrote := make(chan int, 1)
	addr := rawH2Server(t, func(fr *http2.Framer, id uint32) {
		n := len(frag)
		err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: append([]byte{0x88}, frag...)})
		for ; err == nil && n < flood; n += len(frag) {
			err = fr.WriteContinuation(id, false, frag)
		}
		wrote <- n
	})
	cl, err := NewClient(h2Target("http://"+addr+"/", 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out := do(t, cl, 0)
	if out.Kind != protocols.KindProtocol || out.Err != errHeadersTooLarge {
		t.Errorf("kind %v, err %v; want protocol, %v", out.Kind, out.Err, errHeadersTooLarge)
	}
	if n := <-wrote; n >= flood {
		t.Errorf("the server wrote all %d bytes of its header block: the client read on", n)
	}
}
