package http2

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// Bodies larger than the flow-control windows flow both ways: the client
// gives back what it read of a response, and waits for the server's
// window to send a request body.
func TestFlowControl(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	srv := newH2Server(t, false, func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.URL.Path == "/upload" {
			_, _ = fmt.Fprintf(w, "got %d", n)
			return
		}
		_, _ = w.Write(big)
	})
	for _, tc := range []struct {
		name, path string
		body       []byte
		expect     scenarios.Expect
	}{
		{"response of 1 MiB", "/", nil, scenarios.Expect{Length: int64(len(big)), BodyContains: "cdef0123"}},
		{"request body of 1 MiB", "/upload", big, scenarios.Expect{Length: -1, BodyContains: fmt.Sprintf("got %d", len(big))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := h2Target(srv.URL+tc.path, 1)
			tg.HTTP.Requests[0].Body = tc.body
			if tc.body != nil {
				tg.HTTP.Requests[0].Method = "POST"
			}
			tg.HTTP.Expect = tc.expect
			cl, err := NewClient(tg, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			for i := range 3 {
				if out := do(t, cl, 0); out.Kind != protocols.KindNone || out.Status != 200 {
					t.Fatalf("request %d: kind %v status %d err %v", i, out.Kind, out.Status, out.Err)
				}
			}
		})
	}
}

// Workers wait for a free stream when the server allows fewer streams than
// there are workers on a connection.
func TestMaxConcurrentStreams(t *testing.T) {
	for _, limit := range []int{1, 2} {
		var inFlight, peak atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			defer inFlight.Add(-1)
			_, _ = w.Write([]byte("ok"))
		}))
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: limit}
		srv.Start()
		t.Cleanup(srv.Close)
		p, err := NewPool(h2Target(srv.URL+"/", 1))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var failed atomic.Int64
		for w := range 6 {
			cl, err := p.NewClient(nil, w)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				var out protocols.Outcome
				for range 20 {
					if cl.Do(context.Background(), 0, &out); out.Kind != protocols.KindNone {
						failed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		_ = p.Close()
		if failed.Load() != 0 || peak.Load() > int64(limit) {
			t.Errorf("limit %d: %d requests failed, %d streams at once", limit, failed.Load(), peak.Load())
		}
	}
}

// A server's PING is answered before its response; a cancelled context
// ends a request that waits for one.
func TestPingAndCancel(t *testing.T) {
	got := make(chan struct{}, 1)
	silent := rawH2Server(t, func(_ *http2.Framer, _ uint32) { got <- struct{}{} })
	pinged := pingServer(t)
	for _, tc := range []struct {
		name   string
		url    string
		cancel bool
		kind   protocols.ErrorKind
	}{
		{"ping", "http://" + pinged + "/", false, protocols.KindNone},
		{"cancelled", "http://" + silent + "/", true, protocols.KindOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := h2Target(tc.url, 1)
			tg.HTTP.Timeout = 0 // only the cancellation ends the request
			cl, err := NewClient(tg, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				go func() { <-got; cancel() }()
			}
			var out protocols.Outcome
			cl.Do(ctx, 0, &out)
			if out.Kind != tc.kind {
				t.Errorf("kind %v err %v, want %v", out.Kind, out.Err, tc.kind)
			}
		})
	}
}

// pingServer pings the client when a request arrives and answers the
// request once the client acknowledged the ping.
func pingServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { servePing(c) })
		}
	})
	return ln.Addr().String()
}

func servePing(c net.Conn) {
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings() != nil {
		return
	}
	var pending uint32
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() && fr.WriteSettingsAck() != nil {
				return
			}
		case *http2.HeadersFrame:
			pending = f.StreamID
			_ = fr.WritePing(false, [8]byte{7})
		case *http2.PingFrame:
			if f.IsAck() && f.Data == [8]byte{7} && pending != 0 {
				_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: pending, BlockFragment: []byte{0x88},
					EndHeaders: true, EndStream: true})
				pending = 0
			}
		}
	}
}
