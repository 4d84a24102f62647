package websocket

import (
	"bufio"
	"context"
	"encoding/pem"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

func lit(s string) scenarios.Template {
	return scenarios.Template{Parts: []scenarios.TemplatePart{{Kind: scenarios.PartLiteral, Literal: []byte(s)}}}
}

func sendText(s string) scenarios.WSStep {
	return scenarios.WSStep{Kind: scenarios.WSSendText, Payload: lit(s)}
}

func sendBinary(s string) scenarios.WSStep {
	return scenarios.WSStep{Kind: scenarios.WSSendBinary, Payload: lit(s)}
}

func expect(e scenarios.WSExpectCheck) scenarios.WSStep {
	return scenarios.WSStep{Kind: scenarios.WSExpect, Pos: scenarios.Pos{Line: 9}, Expect: e}
}

func contains(s string) scenarios.WSStep {
	return expect(scenarios.WSExpectCheck{Contains: []byte(s)})
}

func wsTarget(url string, conn scenarios.TCPConnection, steps ...scenarios.WSStep) *scenarios.Target {
	return &scenarios.Target{Name: "ws", WebSocket: &scenarios.WebSocketTarget{
		URL: url, Connection: conn, Timeout: 5 * time.Second, MaxMessage: 1 << 20, Iteration: steps,
	}}
}

func newTestClient(t testing.TB, target *scenarios.Target, worker int) *wsClient {
	t.Helper()
	cl, err := NewClient(target, worker)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl.(*wsClient)
}

func TestWSConnectionPolicies(t *testing.T) {
	for _, tc := range []struct {
		name      string
		conn      scenarios.TCPConnection
		wantConns int64
	}{
		{"persistent", scenarios.Persistent, 1},
		{"per_iteration", scenarios.PerIteration, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got messages
			srv := newWSServer(t, false, recordingEcho(&got))
			target := wsTarget(srv.url("/ws"), tc.conn, sendText("ping"), contains("ping"))
			target.WebSocket.Headers = []scenarios.Header{{Name: "X-Test", Value: "yes"}}
			target.WebSocket.OnConnect = []scenarios.WSStep{sendText("hello"), contains("hello")}
			cl := newTestClient(t, target, 0)
			connects := 0
			for range 5 {
				var out protocols.Outcome
				cl.Do(t.Context(), 0, &out)
				if out.Kind != protocols.KindNone {
					t.Fatalf("kind %v: %v", out.Kind, out.Err)
				}
				if out.Connect > 0 {
					connects++
				}
				if out.BytesSent == 0 || out.BytesReceived == 0 {
					t.Errorf("bytes sent %d, received %d", out.BytesSent, out.BytesReceived)
				}
			}
			_ = cl.Close()
			if n := srv.accepted.Load(); n != tc.wantConns || int64(connects) != tc.wantConns {
				t.Errorf("server accepted %d connections, client reported %d connects; want %d", n, connects, tc.wantConns)
			}
			if h := srv.header.Load(); h != "yes" {
				t.Errorf("X-Test header %q at the server", h)
			}
			var want []string
			for i := range 5 {
				if i == 0 || tc.conn == scenarios.PerIteration {
					want = append(want, "hello")
				}
				want = append(want, "ping")
			}
			if diff := cmp.Diff(want, got.all()); diff != "" {
				t.Errorf("messages at the server (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWSExpect(t *testing.T) {
	srv := newWSServer(t, false, echo)
	re := regexp.MustCompile(`^ping [0-9]+$`)
	for _, tc := range []struct {
		name  string
		steps []scenarios.WSStep
		want  protocols.ErrorKind
		err   string
	}{
		{"text contains", []scenarios.WSStep{sendText("hello world"), contains("world")}, protocols.KindNone, ""},
		{"text contains fails", []scenarios.WSStep{sendText("hello world"), contains("moon")}, protocols.KindCheck, `does not contain "moon"`},
		{"binary equals", []scenarios.WSStep{sendBinary("\x00\x01\xff"), expect(scenarios.WSExpectCheck{Equals: []byte("\x00\x01\xff")})}, protocols.KindNone, ""},
		{"binary equals fails", []scenarios.WSStep{sendBinary("\x00\x01\xff"), expect(scenarios.WSExpectCheck{Equals: []byte("\x00\x01")})}, protocols.KindCheck, `does not equal "\x00\x01"`},
		{"regex", []scenarios.WSStep{sendText("ping 42"), expect(scenarios.WSExpectCheck{Regex: re})}, protocols.KindNone, ""},
		{"regex fails", []scenarios.WSStep{sendText("ping x"), expect(scenarios.WSExpectCheck{Regex: re})}, protocols.KindCheck, "does not match /^ping [0-9]+$/"},
		{"any message", []scenarios.WSStep{sendText("a"), expect(scenarios.WSExpectCheck{})}, protocols.KindNone, ""},
		{"two sends, two expects", []scenarios.WSStep{sendText("a"), sendBinary("b"), contains("a"), contains("b")}, protocols.KindNone, ""},
		{"second of two fails", []scenarios.WSStep{sendText("a"), sendText("b"), contains("a"), contains("a")}, protocols.KindCheck, `does not contain "a"`},
		{"large message", []scenarios.WSStep{sendText(strings.Repeat("x", 70000) + "end"), contains("xend")}, protocols.KindNone, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := newTestClient(t, wsTarget(srv.url("/"), scenarios.Persistent, tc.steps...), 0)
			var out protocols.Outcome
			cl.Do(t.Context(), 0, &out)
			if out.Kind != tc.want {
				t.Fatalf("kind %v (%v), want %v", out.Kind, out.Err, tc.want)
			}
			if tc.err == "" && out.Err != nil || tc.err != "" && (out.Err == nil || !strings.Contains(out.Err.Error(), tc.err)) {
				t.Errorf("error %v, want one containing %q", out.Err, tc.err)
			}
		})
	}
}

// readThen reads one client message, then does what the case needs.
func readThen(then func(net.Conn, *bufio.ReadWriter)) func(net.Conn, *bufio.ReadWriter) {
	return func(conn net.Conn, rw *bufio.ReadWriter) {
		if _, _, err := readClientFrame(rw.Reader, new(frameScratch), nil); err != nil {
			return
		}
		then(conn, rw)
	}
}

func writeFrames(frames ...ws.Frame) func(net.Conn, *bufio.ReadWriter) {
	return func(conn net.Conn, rw *bufio.ReadWriter) {
		for _, f := range frames {
			if err := ws.WriteFrame(conn, f); err != nil {
				return
			}
		}
		_, _ = io.Copy(io.Discard, rw) // until the client closes
	}
}

func TestWSErrorKinds(t *testing.T) {
	closeWith := func(code ws.StatusCode) ws.Frame {
		return ws.NewCloseFrame(ws.NewCloseFrameBody(code, "bye"))
	}
	huge := func(conn net.Conn, rw *bufio.ReadWriter) {
		// A header announcing 1 GiB, and none of it: the client must
		// refuse it from the header alone.
		_ = ws.WriteHeader(conn, ws.Header{Fin: true, OpCode: ws.OpBinary, Length: 1 << 30})
		_, _ = io.Copy(io.Discard, rw)
	}
	silent := func(_ net.Conn, rw *bufio.ReadWriter) { _, _ = io.Copy(io.Discard, rw) }
	for _, tc := range []struct {
		name   string
		handle func(net.Conn, *bufio.ReadWriter)
		path   string
		want   protocols.ErrorKind
		status int
		err    string
	}{
		{"server closes mid-iteration", readThen(func(net.Conn, *bufio.ReadWriter) {}), "/", protocols.KindReset, 0, "EOF"},
		{"close frame 1000", readThen(writeFrames(closeWith(ws.StatusNormalClosure))), "/", protocols.KindReset, 0, "close frame"},
		{"close frame 1011", readThen(writeFrames(closeWith(ws.StatusInternalServerError))), "/", protocols.KindProtocol, 0, "code 1011"},
		{"close frame 4000", readThen(writeFrames(closeWith(4000))), "/", protocols.KindProtocol, 0, "application"},
		{"oversized message", readThen(huge), "/", protocols.KindProtocol, 0, "max_message"},
		{"masked frame", readThen(writeFrames(ws.MaskFrame(ws.NewTextFrame([]byte("hi"))))), "/", protocols.KindProtocol, 0, "masked"},
		{"handshake refused", echo, "/forbidden", protocols.KindStatus, 403, "403"},
		{"silent server", silent, "/", protocols.KindTimeout, 0, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newWSServer(t, false, tc.handle)
			target := wsTarget(srv.url(tc.path), scenarios.Persistent, sendText("hi"), contains("hi"))
			target.WebSocket.MaxMessage = 1024
			target.WebSocket.Timeout = 300 * time.Millisecond
			cl := newTestClient(t, target, 0)
			var out protocols.Outcome
			cl.Do(t.Context(), 0, &out)
			if out.Kind != tc.want || out.Status != tc.status {
				t.Fatalf("kind %v status %d (%v), want %v status %d", out.Kind, out.Status, out.Err, tc.want, tc.status)
			}
			if out.Err == nil || !strings.Contains(out.Err.Error(), tc.err) {
				t.Errorf("error %v, want one containing %q", out.Err, tc.err)
			}
			if cl.wc.Current() != nil {
				t.Errorf("the connection was kept after a failure")
			}
			if c := cap(cl.rd.msg); c > 1024 {
				t.Errorf("message buffer grew to %d bytes, beyond max_message", c)
			}
		})
	}
}

func TestWSConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	cl := newTestClient(t, wsTarget("ws://"+addr+"/", scenarios.Persistent, sendText("hi")), 0)
	var out protocols.Outcome
	cl.Do(t.Context(), 0, &out)
	if out.Kind != protocols.KindConnect || out.Err == nil || !strings.Contains(out.Err.Error(), "refused") {
		t.Errorf("kind %v, error %v; want a connect error saying refused", out.Kind, out.Err)
	}
}

// TestWSPingIsAnswered checks that a ping before the reply is answered with
// a pong carrying its payload and is never taken for the reply.
func TestWSPingIsAnswered(t *testing.T) {
	pong := make(chan string, 1)
	srv := newWSServer(t, false, readThen(func(conn net.Conn, rw *bufio.ReadWriter) {
		_ = ws.WriteFrame(conn, ws.NewPingFrame([]byte("are you there")))
		_ = ws.WriteFrame(conn, ws.NewTextFrame([]byte("reply")))
		op, p, err := readClientFrame(rw.Reader, new(frameScratch), nil)
		if err == nil && op == ws.OpPong {
			pong <- string(p)
		}
		close(pong)
		_, _ = io.Copy(io.Discard, rw)
	}))
	cl := newTestClient(t, wsTarget(srv.url("/"), scenarios.Persistent, sendText("hi"), expect(scenarios.WSExpectCheck{Equals: []byte("reply")})), 0)
	var out protocols.Outcome
	cl.Do(t.Context(), 0, &out)
	if out.Kind != protocols.KindNone {
		t.Fatalf("kind %v: %v", out.Kind, out.Err)
	}
	if p := <-pong; p != "are you there" {
		t.Errorf("pong %q, want the ping's payload", p)
	}
}

// TestWSReconnectsAfterFailure checks that a persistent worker opens a new
// connection, running on_connect again, after a failed iteration.
func TestWSReconnectsAfterFailure(t *testing.T) {
	srv := newWSServer(t, false, echo)
	target := wsTarget(srv.url("/"), scenarios.Persistent, sendText("a"), contains("b"))
	target.WebSocket.OnConnect = []scenarios.WSStep{sendText("hello"), contains("hello")}
	cl := newTestClient(t, target, 0)
	for i := range 3 {
		var out protocols.Outcome
		cl.Do(t.Context(), 0, &out)
		if out.Kind != protocols.KindCheck || out.Connect == 0 {
			t.Fatalf("iteration %d: kind %v, connect %v; want a check error on a new connection", i, out.Kind, out.Connect)
		}
	}
	if n := srv.accepted.Load(); n != 3 {
		t.Errorf("server accepted %d connections, want 3", n)
	}
}

func TestWSOnConnectFailureIsConnectTime(t *testing.T) {
	srv := newWSServer(t, false, echo)
	target := wsTarget(srv.url("/"), scenarios.Persistent, sendText("a"), contains("a"))
	target.WebSocket.OnConnect = []scenarios.WSStep{sendText("hello"), contains("welcome")}
	cl := newTestClient(t, target, 0)
	var out protocols.Outcome
	cl.Do(t.Context(), 0, &out)
	if out.Kind != protocols.KindCheck || out.Connect != 0 || cl.wc.Current() != nil {
		t.Errorf("kind %v, connect %v, connection kept %v; want a check error and no connection", out.Kind, out.Connect, cl.wc.Current() != nil)
	}
}

func TestWSTLS(t *testing.T) {
	srv := newWSServer(t, true, echo)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.srv.Certificate().Raw})
	if err := os.WriteFile(caFile, block, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tls  scenarios.TLS
		want protocols.ErrorKind
	}{
		{"ca_file", scenarios.TLS{CAFile: caFile}, protocols.KindNone},
		{"insecure_skip_verify", scenarios.TLS{InsecureSkipVerify: true}, protocols.KindNone},
		{"unknown authority", scenarios.TLS{}, protocols.KindConnect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := wsTarget(srv.url("/"), scenarios.Persistent, sendText("secure"), contains("secure"))
			if !strings.HasPrefix(target.WebSocket.URL, "wss://") {
				t.Fatalf("url %s", target.WebSocket.URL)
			}
			target.WebSocket.TLS = tc.tls
			cl := newTestClient(t, target, 0)
			var out protocols.Outcome
			cl.Do(t.Context(), 0, &out)
			if out.Kind != tc.want {
				t.Errorf("kind %v (%v), want %v", out.Kind, out.Err, tc.want)
			}
		})
	}
}

func TestWSPlaceholders(t *testing.T) {
	var got messages
	srv := newWSServer(t, false, recordingEcho(&got))
	tpl := scenarios.Template{Parts: []scenarios.TemplatePart{
		{Kind: scenarios.PartLiteral, Literal: []byte("w=")}, {Kind: scenarios.PartWorker},
		{Kind: scenarios.PartLiteral, Literal: []byte(" seq=")}, {Kind: scenarios.PartSeq},
	}}
	step := scenarios.WSStep{Kind: scenarios.WSSendText, Payload: tpl}
	re := regexp.MustCompile(`^w=3 seq=[0-9]+$`)
	cl := newTestClient(t, wsTarget(srv.url("/"), scenarios.Persistent, step, expect(scenarios.WSExpectCheck{Regex: re})), 3)
	for range 3 {
		var out protocols.Outcome
		cl.Do(t.Context(), 0, &out)
		if out.Kind != protocols.KindNone {
			t.Fatalf("kind %v: %v", out.Kind, out.Err)
		}
	}
	if diff := cmp.Diff([]string{"w=3 seq=1", "w=3 seq=2", "w=3 seq=3"}, got.all()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestWSCancelAndCloseInterruptDo(t *testing.T) {
	silent := func(_ net.Conn, rw *bufio.ReadWriter) { _, _ = io.Copy(io.Discard, rw) }
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			srv := newWSServer(t, false, silent)
			target := wsTarget(srv.url("/"), scenarios.Persistent, sendText("hi"), contains("hi"))
			target.WebSocket.Timeout = time.Hour
			cl := newTestClient(t, target, 0)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan protocols.ErrorKind)
			go func() {
				var out protocols.Outcome
				cl.Do(ctx, 0, &out)
				done <- out.Kind
			}()
			for srv.accepted.Load() == 0 {
				time.Sleep(time.Millisecond) // until the worker is connected and reading
			}
			if how == "cancel" {
				cancel()
			} else {
				_ = cl.Close()
			}
			select {
			case kind := <-done:
				if kind == protocols.KindNone {
					t.Errorf("interrupted Do reported success")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Do did not return after " + how)
			}
		})
	}
}
