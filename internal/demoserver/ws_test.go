package demoserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// dialWS opens a WebSocket to url and closes it when the test ends.
func dialWS(t *testing.T, url string, hc *http.Client) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.Dial(t.Context(), url, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake status %d", resp.StatusCode)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func TestWebSocketEcho(t *testing.T) {
	big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 64<<10) // 256 KiB, several frames
	msgs := []struct {
		typ  websocket.MessageType
		data []byte
	}{
		{websocket.MessageText, []byte("hello")},
		{websocket.MessageBinary, []byte{0x00, 0xff, 0x10}},
		{websocket.MessageText, []byte("")},
		{websocket.MessageText, []byte("héllo wörld")},
		{websocket.MessageBinary, big},
	}
	tests := []struct {
		name string
		cfg  Config
		url  func(s *Server) string
		hc   func(t *testing.T, s *Server) *http.Client
	}{
		{name: "ws", url: func(s *Server) string { return "ws://" + s.HTTPAddr() + "/ws" }},
		// h2c on the listener must not get in the way of the HTTP/1.1 upgrade.
		{name: "ws beside h2c", cfg: Config{HTTP2: true}, url: func(s *Server) string { return "ws://" + s.HTTPAddr() + "/ws" }},
		{name: "wss", cfg: Config{HTTPSAddr: "127.0.0.1:0"},
			url: func(s *Server) string { return "wss://" + s.HTTPSAddr() + "/ws" },
			hc: func(t *testing.T, s *Server) *http.Client {
				pool := x509.NewCertPool()
				pool.AppendCertsFromPEM(s.CertPEM())
				tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
				t.Cleanup(tr.CloseIdleConnections)
				return &http.Client{Transport: tr}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.cfg)
			var hc *http.Client
			if tt.hc != nil {
				hc = tt.hc(t, s)
			}
			c := dialWS(t, tt.url(s), hc)
			c.SetReadLimit(MaxBodyBytes)
			ctx := t.Context()
			for i, m := range msgs {
				if err := c.Write(ctx, m.typ, m.data); err != nil {
					t.Fatalf("message %d: write: %v", i, err)
				}
				typ, got, err := c.Read(ctx)
				if err != nil {
					t.Fatalf("message %d: read: %v", i, err)
				}
				if typ != m.typ || !bytes.Equal(got, m.data) {
					t.Errorf("message %d: got %v of %d bytes, want %v of %d bytes", i, typ, len(got), m.typ, len(m.data))
				}
			}
			if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
				t.Errorf("close: %v", err)
			}
			st := s.Stats()
			if st.WSConnections != 1 || st.WSMessages != int64(len(msgs)) || st.HTTP1Requests != 1 {
				t.Errorf("ws_connections %d, ws_messages %d, http1_requests %d; want 1, %d, 1",
					st.WSConnections, st.WSMessages, st.HTTP1Requests, len(msgs))
			}
		})
	}
}

func TestWebSocketFaults(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		timeout   time.Duration
		wantClose websocket.StatusCode // -1: no close frame, the read timed out
		errors    int64
	}{
		{name: "error rate closes with 1011", cfg: Config{ErrorRate: 1}, wantClose: InjectedCloseStatus, errors: 1},
		// The delay far exceeds the client's patience: no echo comes.
		{name: "delay holds the echo", cfg: Config{Delay: time.Hour}, timeout: 20 * time.Millisecond, wantClose: -1},
		{name: "stall holds the echo", cfg: Config{StallEvery: 2 * time.Hour, StallFor: time.Hour}, timeout: 20 * time.Millisecond, wantClose: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.cfg)
			c := dialWS(t, "ws://"+s.HTTPAddr()+"/ws", nil)
			ctx := t.Context()
			if err := c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
				t.Fatal(err)
			}
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			_, got, err := c.Read(ctx)
			if err == nil {
				t.Fatalf("echo %q arrived, want none", got)
			}
			if code := websocket.CloseStatus(err); code != tt.wantClose {
				t.Errorf("close status %v (%v), want %v", code, err, tt.wantClose)
			}
			if st := s.Stats(); st.Errors != tt.errors || st.WSMessages != 1 {
				t.Errorf("errors %d, ws_messages %d; want %d, 1", st.Errors, st.WSMessages, tt.errors)
			}
		})
	}
}

// TestWebSocketCloseEndsConnections: Close must end open WebSocket
// connections (net/http no longer tracks them once upgraded) and wait for
// their handlers, held ones included.
func TestWebSocketCloseEndsConnections(t *testing.T) {
	s, err := Start(t.Context(), Config{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	idle := dialWS(t, "ws://"+s.HTTPAddr()+"/ws", nil)
	held := dialWS(t, "ws://"+s.HTTPAddr()+"/ws", nil)
	if err := held.Write(t.Context(), websocket.MessageText, []byte("wait")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Stats().WSMessages == 1 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*websocket.Conn{"idle": idle, "held": held} {
		if _, _, err := c.Read(t.Context()); err == nil {
			t.Errorf("%s connection still open after Close", name)
		}
	}
}

func TestWebSocketRefusesPlainGET(t *testing.T) {
	s := start(t, Config{})
	r := do(t, newClient(t, false), "GET", "http://"+s.HTTPAddr()+"/ws", "", nil)
	if r.status != http.StatusUpgradeRequired || !strings.Contains(r.body, "WebSocket") {
		t.Errorf("plain GET /ws: %d %q, want 426 mentioning WebSocket", r.status, r.body)
	}
	if s.Stats().WSConnections != 0 {
		t.Error("a refused handshake counted as a connection")
	}
}
