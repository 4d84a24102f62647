package grpc

import (
	"context"
	"testing"

	"github.com/loadgate/loadgate/protocols"
)

// BenchmarkGRPCUnary is one worker's Say calls on loopback, the server in
// the same process: the allocations are the client's and the library's
// per call (the server's are on other goroutines but counted too).
func BenchmarkGRPCUnary(b *testing.B) {
	for _, bc := range []struct{ name, message string }{
		{"static", "    message: { text: hi }\n"},
		{"templated", "    message: { text: \"hi {{seq}}\" }\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := startEcho(b)
			tg := target(b, srv.addr, protoSay+bc.message)
			s, err := NewShared(context.Background(), tg)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			c, _ := s.NewClient(tg, 0)
			var out protocols.Outcome
			ctx := context.Background()
			c.Do(ctx, 0, &out)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c.Do(ctx, 0, &out)
				if out.Kind != protocols.KindNone {
					b.Fatal(out.Kind, out.Err)
				}
			}
		})
	}
}
