package http2

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

func TestRequestsOverH2AndH2C(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
	}{{"h2 over TLS", true}, {"h2c prior knowledge", false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newH2Server(t, tc.tls, hello)
			tg := h2Target(srv.URL+"/", 1)
			tg.HTTP.Expect.BodyContains = "hello"
			cl, err := NewClient(tg, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			first := do(t, cl, 0)
			second := do(t, cl, 0)
			for i, out := range []protocols.Outcome{first, second} {
				if out.Kind != protocols.KindNone || out.Status != 200 {
					t.Fatalf("request %d: kind %v status %d err %v", i, out.Kind, out.Status, out.Err)
				}
				if out.BytesReceived == 0 {
					t.Errorf("request %d: %d bytes received", i, out.BytesReceived)
				}
			}
			// A request is charged the bytes its connection sent since the
			// last one ended; the flusher may still be returning from the
			// write that carried a request when its response is read, so
			// only the requests' sum is sure to hold what was sent.
			if first.BytesSent+second.BytesSent == 0 {
				t.Errorf("bytes sent %d, %d: the requests' bytes were not counted", first.BytesSent, second.BytesSent)
			}
			if first.Connect <= 0 || second.Connect != 0 {
				t.Errorf("connect times %v, %v: want one for the first request only", first.Connect, second.Connect)
			}
			if n := srv.connCount(); n != 1 {
				t.Errorf("server saw %d connections, want 1", n)
			}
		})
	}
}

func TestMixAndExpect(t *testing.T) {
	srv := newH2Server(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/post":
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(r.Method + " " + r.Header.Get("X-Test")))
		default:
			_, _ = w.Write([]byte("hello world"))
		}
	})
	tests := []struct {
		name   string
		path   string
		method string
		expect scenarios.Expect
		kind   protocols.ErrorKind
		status int
	}{
		{"ok", "/", "GET", scenarios.Expect{Length: 11, BodyContains: "world"}, protocols.KindNone, 200},
		{"status", "/missing", "GET", scenarios.Expect{Length: -1}, protocols.KindStatus, 404},
		{"accepted status", "/missing", "GET", scenarios.Expect{Status: []int{404}, Length: -1}, protocols.KindNone, 404},
		{"contains", "/", "GET", scenarios.Expect{BodyContains: "nope", Length: -1}, protocols.KindCheck, 200},
		{"regex", "/", "GET", scenarios.Expect{BodyRegex: regexp.MustCompile(`^hello \w+$`), Length: -1}, protocols.KindNone, 200},
		{"regex fails", "/", "GET", scenarios.Expect{BodyRegex: regexp.MustCompile(`^\d+$`), Length: -1}, protocols.KindCheck, 200},
		{"length", "/", "GET", scenarios.Expect{Length: 3}, protocols.KindLength, 200},
		{"post with header", "/post", "POST", scenarios.Expect{Status: []int{201}, BodyContains: "POST yes", Length: -1}, protocols.KindNone, 201},
	}
	tg := h2Target(srv.URL+"/", 2)
	tg.HTTP.Requests = nil
	for _, tc := range tests {
		tg.HTTP.Requests = append(tg.HTTP.Requests, scenarios.HTTPRequest{Name: tc.name, Method: tc.method,
			URL: srv.URL + tc.path, Weight: 1, Headers: []scenarios.Header{{Name: "X-Test", Value: "yes"}}, Body: []byte("b")})
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := *tg.HTTP
			h.Expect = tc.expect
			cl, err := NewClient(&scenarios.Target{Name: "t", HTTP: &h}, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			out := do(t, cl, i)
			if out.Kind != tc.kind || out.Status != tc.status {
				t.Errorf("kind %v status %d (err %v), want %v %d", out.Kind, out.Status, out.Err, tc.kind, tc.status)
			}
			if (out.Kind == protocols.KindNone) != (out.Err == nil) && tc.kind != protocols.KindStatus {
				t.Errorf("err %v with kind %v", out.Err, out.Kind)
			}
		})
	}
}

func TestMaxBody(t *testing.T) {
	srv := newH2Server(t, false, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(make([]byte, 100<<10))
	})
	tg := h2Target(srv.URL+"/", 1)
	tg.HTTP.MaxBody = 1000
	cl, err := NewClient(tg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if out := do(t, cl, 0); out.Kind != protocols.KindLength {
		t.Errorf("kind %v (%v), want length", out.Kind, out.Err)
	}
}

// A server that does not speak HTTP/2 fails every request with the
// protocol kind and an error saying so.
func TestServerWithoutH2(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(hello))
	defer plain.Close()
	h1tls := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	h1tls.StartTLS() // EnableHTTP2 unset: ALPN offers only http/1.1
	defer h1tls.Close()
	for _, tc := range []struct{ name, url, want string }{
		{"h2c preface refused", plain.URL, "prior knowledge"},
		{"no ALPN h2", h1tls.URL, "ALPN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := NewClient(h2Target(tc.url+"/", 1), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			for range 2 {
				out := do(t, cl, 0)
				if out.Kind != protocols.KindProtocol || out.Err == nil || !strings.Contains(out.Err.Error(), tc.want) {
					t.Fatalf("kind %v err %v, want protocol mentioning %q", out.Kind, out.Err, tc.want)
				}
			}
		})
	}
}

// A stream reset or a GOAWAY is a reset, and the next request opens a
// new connection when the old one is going away.
func TestResetAndGoAway(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(fr *http2.Framer, stream uint32)
	}{
		{"RST_STREAM", func(fr *http2.Framer, stream uint32) { _ = fr.WriteRSTStream(stream, http2.ErrCodeRefusedStream) }},
		{"GOAWAY", func(fr *http2.Framer, stream uint32) {
			_ = fr.WriteGoAway(0, http2.ErrCodeEnhanceYourCalm, []byte("bye"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := rawH2Server(t, tc.answer)
			cl, err := NewClient(h2Target("http://"+addr+"/", 1), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			for i := range 3 {
				out := do(t, cl, 0)
				if out.Kind != protocols.KindReset || out.Err == nil {
					t.Fatalf("request %d: kind %v err %v, want reset", i, out.Kind, out.Err)
				}
			}
		})
	}
}

func TestDialErrorAndTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	stall := newH2Server(t, false, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	for _, tc := range []struct {
		name, url string
		timeout   time.Duration
		kind      protocols.ErrorKind
	}{
		{"refused", "http://" + closed + "/", time.Second, protocols.KindConnect},
		{"stalled", stall.URL + "/", 50 * time.Millisecond, protocols.KindTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := h2Target(tc.url, 1)
			tg.HTTP.Timeout = tc.timeout
			cl, err := NewClient(tg, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			out := do(t, cl, 0)
			if out.Kind != tc.kind || out.Err == nil {
				t.Errorf("kind %v err %v, want %v", out.Kind, out.Err, tc.kind)
			}
			var opErr *net.OpError
			if tc.kind == protocols.KindConnect && !errors.As(out.Err, &opErr) {
				t.Errorf("err %v is not the dial's", out.Err)
			}
		})
	}
}

// The workers of a pool share its connections: worker w uses connection
// w mod C, and its requests are concurrent streams on it.
func TestPoolSharesConnections(t *testing.T) {
	for _, tc := range []struct{ workers, conns, inFlight int }{
		{workers: 4, conns: 1, inFlight: 4},
		{workers: 6, conns: 3, inFlight: 6},
	} {
		var mu sync.Mutex
		waiting := 0
		release := make(chan struct{})
		perConn := map[string]int{}
		srv := newH2Server(t, true, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			waiting++
			perConn[r.RemoteAddr]++
			if waiting == tc.inFlight {
				close(release)
			}
			mu.Unlock()
			// Every request waits until all are in flight at once, which
			// they can only be as concurrent streams.
			select {
			case <-release:
			case <-r.Context().Done():
			}
			_, _ = w.Write([]byte("ok"))
		})
		p, err := NewPool(h2Target(srv.URL+"/", tc.conns))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		outs := make([]protocols.Outcome, tc.workers)
		for w := range tc.workers {
			cl, err := p.NewClient(nil, w)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() { cl.Do(context.Background(), 0, &outs[w]); _ = cl.Close() })
		}
		wg.Wait()
		_ = p.Close()
		for w, out := range outs {
			if out.Kind != protocols.KindNone {
				t.Errorf("%d workers over %d: worker %d: %v %v", tc.workers, tc.conns, w, out.Kind, out.Err)
			}
		}
		if n := srv.connCount(); n != tc.conns {
			t.Errorf("%d workers over %d connections: server saw %d", tc.workers, tc.conns, n)
		}
		for addr, n := range perConn {
			if want := tc.workers / tc.conns; n != want {
				t.Errorf("connection %s carried %d streams, want %d", addr, n, want)
			}
		}
	}
}
