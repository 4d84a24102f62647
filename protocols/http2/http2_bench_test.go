package http2

import (
	"context"
	"net/http"
	"testing"

	"github.com/loadgate/loadgate/protocols"
)

// BenchmarkHTTP2 is one request on a kept h2c connection: what a worker
// spends per request, x/net/http2's share included.
func BenchmarkHTTP2(b *testing.B) {
	srv := newH2Server(b, false, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("hello"))
	})
	tg := h2Target(srv.URL+"/", 1)
	tg.HTTP.Expect.BodyContains = "hello"
	cl, err := NewClient(tg, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	var out protocols.Outcome
	cl.Do(ctx, 0, &out)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cl.Do(ctx, 0, &out)
		if out.Kind != protocols.KindNone {
			b.Fatal(out.Kind, out.Err)
		}
	}
}
