package http2

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// h2Server is a loopback HTTP/2 server, h2 over TLS or h2c, that counts
// the connections it accepted.
type h2Server struct {
	*httptest.Server
	mu    sync.Mutex
	conns map[string]bool // remote addresses of accepted connections
}

func newH2Server(t testing.TB, tlsOn bool, h http.HandlerFunc) *h2Server {
	t.Helper()
	s := &h2Server{conns: map[string]bool{}}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns[c.RemoteAddr().String()] = true
			s.mu.Unlock()
		}
	}
	if tlsOn {
		s.EnableHTTP2 = true
		s.StartTLS()
	} else {
		s.Config.Protocols = new(http.Protocols)
		s.Config.Protocols.SetUnencryptedHTTP2(true)
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}

func (s *h2Server) connCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func hello(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor != 2 {
		http.Error(w, "not HTTP/2", http.StatusHTTPVersionNotSupported)
		return
	}
	_, _ = io.WriteString(w, "hello")
}

// h2Target is an HTTP/2 target of one GET of url over conns connections.
func h2Target(url string, conns int) *scenarios.Target {
	return &scenarios.Target{Name: "t", HTTP: &scenarios.HTTPTarget{
		Requests:  []scenarios.HTTPRequest{{Method: "GET", URL: url, Weight: 1}},
		Keepalive: true, Timeout: 10 * time.Second, MaxBody: 10 << 20,
		Expect: scenarios.Expect{Length: -1}, HTTP2: true, Connections: conns,
		TLS: scenarios.TLS{InsecureSkipVerify: true},
	}}
}

func do(t *testing.T, cl protocols.Client, req int) protocols.Outcome {
	t.Helper()
	var out protocols.Outcome
	cl.Do(context.Background(), req, &out)
	return out
}

// rawH2Server accepts HTTP/2 connections and answers every request's
// HEADERS frame with what answer writes, to play servers that misbehave.
func rawH2Server(t *testing.T, answer func(fr *http2.Framer, stream uint32)) string {
	t.Helper()
	return rawH2ServerSeeing(t, answer, nil)
}

// rawH2ServerSeeing is rawH2Server that also shows seen, when not nil,
// every frame the client sent after its preface.
func rawH2ServerSeeing(t *testing.T, answer func(fr *http2.Framer, stream uint32), seen func(http2.Frame)) string {
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
			wg.Go(func() { serveRaw(c, answer, seen) })
		}
	})
	return ln.Addr().String()
}

func serveRaw(c net.Conn, answer func(fr *http2.Framer, stream uint32), seen func(http2.Frame)) {
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings() != nil {
		return
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if seen != nil {
			seen(f)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() && fr.WriteSettingsAck() != nil {
				return
			}
		case *http2.HeadersFrame:
			answer(fr, f.StreamID)
		}
	}
}
