package http1

import (
	"context"
	"net"
	"regexp"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// cannedServer answers every request head it reads with one fixed
// response. It allocates nothing per request, so that allocation counts and
// profiles taken in this process belong to the client.
func cannedServer(tb testing.TB, resp string) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	return "http://" + serveCannedOn(tb, l, resp) + "/"
}

// serveCannedOn answers every request on l's connections with resp until
// the test ends, and returns l's address.
func serveCannedOn(tb testing.TB, l net.Listener, resp string) string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveCanned(c, []byte(resp))
		}
	}()
	tb.Cleanup(func() { l.Close(); <-done })
	return l.Addr().String()
}

func serveCanned(c net.Conn, resp []byte) {
	defer c.Close()
	buf := make([]byte, 4096)
	matched := 0 // bytes of "\r\n\r\n" seen at the end of the stream so far
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		for _, b := range buf[:n] {
			switch {
			case b == "\r\n\r\n"[matched]:
				matched++
			case b == '\r':
				matched = 1
			default:
				matched = 0
			}
			if matched == 4 {
				matched = 0
				if _, err := c.Write(resp); err != nil {
					return
				}
			}
		}
	}
}

// nginxHello is what bench/nginx.conf.in answers.
const nginxHello = "HTTP/1.1 200 OK\r\nServer: nginx/1.24.0\r\nDate: Mon, 02 Mar 2026 10:00:00 GMT\r\n" +
	"Content-Type: text/plain\r\nContent-Length: 6\r\nConnection: keep-alive\r\n\r\nhello\n"

func TestHTTP1KeepAliveAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	url := cannedServer(t, nginxHello)
	for _, tc := range []struct {
		name string
		mod  func(h *scenarios.HTTPTarget)
	}{
		{"no check", nil},
		{"body checks", func(h *scenarios.HTTPTarget) {
			h.Expect.BodyContains = "hello"
			h.Expect.BodyRegex = regexp.MustCompile(`^h[a-z]+\n$`)
		}},
		{"failing body checks", func(h *scenarios.HTTPTarget) {
			h.Expect.BodyContains = "bye"
			h.Expect.BodyRegex = regexp.MustCompile(`^b[a-z]+$`)
		}},
	} {
		cl := newTestHTTP1(t, http1Target(url, tc.mod))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out protocols.Outcome
		do := func() {
			cl.Do(ctx, 0, &out)
			if out.Kind != protocols.KindNone && out.Kind != protocols.KindCheck {
				t.Fatalf("%s: request failed: %v", tc.name, out.Kind)
			}
		}
		do() // the connection and the cancellation hook are made once
		if n := testing.AllocsPerRun(1000, do); n != 0 {
			t.Errorf("%s: %v allocations per kept-alive request, want 0", tc.name, n)
		}
	}
}

func BenchmarkHTTP1KeepAlive(b *testing.B) {
	benchKeepAlive(b, http1Target(cannedServer(b, nginxHello), nil))
}

// benchKeepAlive measures kept-alive requests to target, the lean client's
// and net/http's.
func benchKeepAlive(b *testing.B, target *scenarios.Target) {
	for _, bc := range []struct {
		name string
		make protocols.NewClientFunc
	}{
		{"lean", newHTTP1Client},
		{"net-http", newNetHTTPClient},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cl, err := bc.make(target, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out protocols.Outcome
			b.ReportAllocs()
			for b.Loop() {
				cl.Do(ctx, 0, &out)
				if out.Kind != protocols.KindNone {
					b.Fatal(out.Kind, out.Err)
				}
			}
		})
	}
}
