package http2

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"

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

// BenchmarkHTTP2Client is one request on a kept h2c connection to a server
// that answers from bytes made once: what the client alone spends (the
// server allocates one frame per request).
func BenchmarkHTTP2Client(b *testing.B) {
	addr := leanH2Server(b)
	tg := h2Target("http://"+addr+"/", 1)
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

// leanH2Server answers every request with status 200 and "hello".
func leanH2Server(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	b.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { serveLean(c) })
		}
	})
	return ln.Addr().String()
}

func serveLean(c net.Conn) {
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	bw := bufio.NewWriter(c)
	fr := http2.NewFramer(bw, bufio.NewReader(c))
	fr.SetReuseFrames()
	if fr.WriteSettings() != nil || bw.Flush() != nil {
		return
	}
	status200 := []byte{0x88} // :status 200, static table entry 8
	hello := []byte("hello")
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.HeadersFrame:
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: f.StreamID, BlockFragment: status200, EndHeaders: true})
			_ = fr.WriteData(f.StreamID, true, hello)
		}
		if bw.Buffered() > 0 && bw.Flush() != nil {
			return
		}
	}
}

// BenchmarkHTTP2Streams is the client's cost per request when 10 workers
// per core share one connection, as h2load -m does: the frames of
// concurrent streams are written and flushed together.
func BenchmarkHTTP2Streams(b *testing.B) {
	addr := leanH2Server(b)
	tg := h2Target("http://"+addr+"/", 1)
	p, err := NewPool(tg)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var workers atomic.Int64
	b.SetParallelism(10)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		cl, err := p.NewClient(nil, int(workers.Add(1)))
		if err != nil {
			b.Error(err)
			return
		}
		ctx := context.Background()
		var out protocols.Outcome
		for pb.Next() {
			if cl.Do(ctx, 0, &out); out.Kind != protocols.KindNone {
				b.Error(out.Kind, out.Err)
				return
			}
		}
	})
}
