package demoserver

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// wsConn is the client end of a WebSocket: reads go through the handshake's
// reader, which may hold the first frames already.
type wsConn struct {
	net.Conn
	r io.Reader
}

func (c wsConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// send writes one masked client message.
func (c wsConn) send(op ws.OpCode, p []byte) error { return wsutil.WriteClientMessage(c.Conn, op, p) }

// recv reads one data message, answering pings; a close frame from the
// server is a wsutil.ClosedError.
func (c wsConn) recv() ([]byte, ws.OpCode, error) { return wsutil.ReadServerData(c) }

// dialWS opens a WebSocket to url and closes it when the test ends.
func dialWS(t *testing.T, url string, tc *tls.Config) wsConn {
	t.Helper()
	c, br, _, err := ws.Dialer{TLSConfig: tc, Timeout: 10 * time.Second}.Dial(t.Context(), url)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	var r io.Reader = c
	if br != nil {
		r = io.MultiReader(br, c)
		ws.PutReader(br)
	}
	return wsConn{Conn: c, r: r}
}

// closeStatus returns the close code of a close frame from the server, or
// -1 for any other error.
func closeStatus(err error) int {
	var closed wsutil.ClosedError
	if errors.As(err, &closed) {
		return int(closed.Code)
	}
	return -1
}

func TestWebSocketEcho(t *testing.T) {
	big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 64<<10) // 256 KiB
	msgs := []struct {
		op   ws.OpCode
		data []byte
	}{
		{ws.OpText, []byte("hello")},
		{ws.OpBinary, []byte{0x00, 0xff, 0x10}},
		{ws.OpText, []byte("")},
		{ws.OpText, []byte("héllo wörld")},
		{ws.OpBinary, big},
	}
	tests := []struct {
		name string
		cfg  Config
		url  func(s *Server) string
		tc   func(s *Server) *tls.Config
	}{
		{name: "ws", url: func(s *Server) string { return "ws://" + s.HTTPAddr() + "/ws" }},
		// h2c on the listener must not get in the way of the HTTP/1.1 upgrade.
		{name: "ws beside h2c", cfg: Config{HTTP2: true}, url: func(s *Server) string { return "ws://" + s.HTTPAddr() + "/ws" }},
		{name: "wss", cfg: Config{HTTPSAddr: "127.0.0.1:0"},
			url: func(s *Server) string { return "wss://" + s.HTTPSAddr() + "/ws" },
			tc: func(s *Server) *tls.Config {
				pool := x509.NewCertPool()
				pool.AppendCertsFromPEM(s.CertPEM())
				return &tls.Config{RootCAs: pool}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.cfg)
			var tc *tls.Config
			if tt.tc != nil {
				tc = tt.tc(s)
			}
			c := dialWS(t, tt.url(s), tc)
			for i, m := range msgs {
				if err := c.send(m.op, m.data); err != nil {
					t.Fatalf("message %d: write: %v", i, err)
				}
				got, op, err := c.recv()
				if err != nil {
					t.Fatalf("message %d: read: %v", i, err)
				}
				if op != m.op || !bytes.Equal(got, m.data) {
					t.Errorf("message %d: got %v of %d bytes, want %v of %d bytes", i, op, len(got), m.op, len(m.data))
				}
			}
			// The server answers a close with a close echoing its code.
			if err := ws.WriteFrame(c.Conn, ws.MaskFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, "")))); err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.recv(); closeStatus(err) != int(ws.StatusNormalClosure) {
				t.Errorf("after close: %v, want the server's close 1000", err)
			}
			st := s.Stats()
			if st.WSConnections != 1 || st.WSMessages != int64(len(msgs)) || st.HTTP1Requests != 1 {
				t.Errorf("ws_connections %d, ws_messages %d, http1_requests %d; want 1, %d, 1",
					st.WSConnections, st.WSMessages, st.HTTP1Requests, len(msgs))
			}
		})
	}
}

// TestWebSocketFragmentsAndPings: a message split into frames with a ping
// between them comes back whole, after the pong; a message over the 10 MiB
// cap is refused with 1009 from its header.
func TestWebSocketFragmentsAndPings(t *testing.T) {
	s := start(t, Config{})
	c := dialWS(t, "ws://"+s.HTTPAddr()+"/ws", nil)
	frames := []ws.Frame{
		ws.NewFrame(ws.OpText, false, []byte("hel")),
		ws.NewPingFrame([]byte("p")),
		ws.NewFrame(ws.OpContinuation, true, []byte("lo")),
	}
	for _, f := range frames {
		if err := ws.WriteFrame(c.Conn, ws.MaskFrame(f)); err != nil {
			t.Fatal(err)
		}
	}
	rd := bufio.NewReader(c)
	var msgs []wsutil.Message
	var err error
	for err == nil && len(msgs) < 2 {
		msgs, err = wsutil.ReadServerMessage(rd, msgs)
	}
	if err != nil || len(msgs) != 2 || msgs[0].OpCode != ws.OpPong || msgs[1].OpCode != ws.OpText || string(msgs[1].Payload) != "hello" {
		t.Fatalf("got %+v, %v; want a pong then the text hello", msgs, err)
	}
	hdr := ws.Header{Fin: true, OpCode: ws.OpBinary, Length: maxBodyBytes + 1, Masked: true}
	if err := ws.WriteHeader(c.Conn, hdr); err != nil {
		t.Fatal(err)
	}
	_, _, err = wsutil.ReadServerData(struct {
		io.Reader
		io.Writer
	}{rd, c.Conn})
	if closeStatus(err) != int(ws.StatusMessageTooBig) {
		t.Errorf("oversized message: %v, want close 1009", err)
	}
	if st := s.Stats(); st.WSMessages != 1 {
		t.Errorf("ws_messages %d, want 1", st.WSMessages)
	}
}

func TestWebSocketFaults(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		timeout   time.Duration
		wantClose int // -1: no close frame, the read timed out
		errors    int64
	}{
		{name: "error rate closes with 1011", cfg: Config{ErrorRate: 1}, wantClose: int(injectedCloseStatus), errors: 1},
		// The delay far exceeds the client's patience: no echo comes.
		{name: "delay holds the echo", cfg: Config{Delay: time.Hour}, timeout: 20 * time.Millisecond, wantClose: -1},
		{name: "stall holds the echo", cfg: Config{StallEvery: 2 * time.Hour, StallFor: time.Hour}, timeout: 20 * time.Millisecond, wantClose: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.cfg)
			c := dialWS(t, "ws://"+s.HTTPAddr()+"/ws", nil)
			if err := c.send(ws.OpText, []byte("ping")); err != nil {
				t.Fatal(err)
			}
			if tt.timeout > 0 {
				_ = c.SetReadDeadline(time.Now().Add(tt.timeout))
			}
			got, _, err := c.recv()
			if err == nil {
				t.Fatalf("echo %q arrived, want none", got)
			}
			if code := closeStatus(err); code != tt.wantClose {
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
	if err := held.send(ws.OpText, []byte("wait")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.Stats().WSMessages == 1 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]wsConn{"idle": idle, "held": held} {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, _, err := c.recv(); err == nil || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s connection: %v after Close, want the server's end of it", name, err)
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
