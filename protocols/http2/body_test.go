package http2

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"unsafe"
)

// Every worker's request sends the target's own body bytes, shared and
// never copied: the same backing array reaches two workers' requests.
func TestLargeBodyIsShared(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	tg := h2Target("http://127.0.0.1:1/up", 2)
	tg.HTTP.Requests[0].Method, tg.HTTP.Requests[0].Body = "PUT", body
	p, err := NewPool(tg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for w := range 2 {
		c, err := newClient(p, w, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.reqs[0].body; len(got) != len(body) || unsafe.SliceData(got) != unsafe.SliceData(body) {
			t.Errorf("worker %d: the request's body is not the target's bytes", w)
		}
	}
}

// A body larger than the server's flow-control windows arrives whole.
func TestLargeBodyReachesTheServer(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 3<<16+1) // 3 MiB and 16 bytes
	var bad atomic.Int64
	srv := newH2Server(t, false, func(w http.ResponseWriter, r *http.Request) {
		if got, err := io.ReadAll(r.Body); err != nil || !bytes.Equal(got, body) {
			bad.Add(1)
		}
		hello(w, r)
	})
	tg := h2Target(srv.URL+"/up", 1)
	tg.HTTP.Requests[0].Method, tg.HTTP.Requests[0].Body = "PUT", body
	cl, err := NewClient(tg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 2 {
		if out := do(t, cl, 0); out.Status != 200 {
			t.Fatalf("request %d: kind %v status %d (%v)", i, out.Kind, out.Status, out.Err)
		}
	}
	if bad.Load() != 0 {
		t.Errorf("%d bodies differed from the one sent", bad.Load())
	}
}
