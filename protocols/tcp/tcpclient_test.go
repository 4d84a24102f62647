package tcp

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testpeer"
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

func tcpLit(s string) scenarios.Template {
	return scenarios.Template{Parts: []scenarios.TemplatePart{{Kind: scenarios.PartLiteral, Literal: []byte(s)}}}
}

func tcpSend(t scenarios.Template) scenarios.TCPStep {
	return scenarios.TCPStep{Kind: scenarios.StepSend, Payload: t}
}

func tcpExpectStep(contains string) scenarios.TCPStep {
	e := scenarios.TCPExpect{}
	if contains != "" {
		e.Contains = []byte(contains)
	}
	return scenarios.TCPStep{Kind: scenarios.StepExpect, Expect: e}
}

// monitorTarget is the agent of the long-vs-short study: a Connect
// handshake, then two data messages per iteration, each acknowledged.
func monitorTarget(addr string, conn scenarios.TCPConnection) *scenarios.Target {
	return &scenarios.Target{Name: "agent", TCP: &scenarios.TCPTarget{
		Address: addr, Connection: conn, Timeout: 5 * time.Second, MaxFrame: 1 << 20,
		Framing:   monitorFraming,
		OnConnect: []scenarios.TCPStep{tcpSend(tcpLit(`{"T":"Connect","S":1}`)), tcpExpectStep("ConnectAck")},
		Iteration: []scenarios.TCPStep{
			tcpSend(tcpLit(`{"T":"MonitorItemData","S":39}`)), tcpExpectStep(`"Ack"`),
			tcpSend(tcpLit(`{"T":"MonitorItemData","S":42}`)), tcpExpectStep(`"Ack"`),
		},
	}}
}

func newTestTCPClient(t testing.TB, target *scenarios.Target, worker int) *tcpClient {
	t.Helper()
	cl, err := NewClient(target, worker)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl.(*tcpClient)
}

func TestTCPConnectionPolicies(t *testing.T) {
	const iterations = 5
	for _, tc := range []struct {
		conn     scenarios.TCPConnection
		accepted int64
	}{
		{scenarios.Persistent, 1},
		{scenarios.PerIteration, iterations},
	} {
		t.Run(tc.conn.String(), func(t *testing.T) {
			srv := testpeer.NewAckServer(t, 0)
			cl := newTestTCPClient(t, monitorTarget(srv.Addr(), tc.conn), 0)
			for i := range iterations {
				var out protocols.Outcome
				cl.Do(t.Context(), 0, &out)
				if out.Kind != protocols.KindNone {
					t.Fatalf("iteration %d failed: %v", i, out.Kind)
				}
				opened := i == 0 || tc.conn == scenarios.PerIteration
				if (out.Connect > 0) != opened {
					t.Errorf("iteration %d: Connect = %v, want it set only when a connection was opened", i, out.Connect)
				}
				// Two 6-byte headers plus the bodies each way, and the
				// handshake's frames when this iteration opened the connection.
				sent := int64(2*6 + 2*len(`{"T":"MonitorItemData","S":39}`))
				recv := int64(2 * (6 + len(`{"T":"Ack"}`)))
				if opened {
					sent += 6 + int64(len(`{"T":"Connect","S":1}`))
					recv += 6 + int64(len(`{"T":"ConnectAck"}`))
				}
				if out.BytesSent != sent || out.BytesReceived != recv {
					t.Errorf("iteration %d: bytes sent %d, received %d; want %d, %d", i, out.BytesSent, out.BytesReceived, sent, recv)
				}
			}
			if got := srv.Accepted(); got != tc.accepted {
				t.Errorf("server accepted %d connections, want %d", got, tc.accepted)
			}
			connects := 0
			for _, b := range srv.Received() {
				if strings.Contains(b, "Connect") {
					connects++
				}
			}
			if int64(connects) != tc.accepted {
				t.Errorf("%d handshakes for %d connections: on_connect must run once per connection", connects, tc.accepted)
			}
		})
	}
}

// refusedAddr is an address nothing listens on.
func refusedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// replyInstead answers the handshake, then sends wire in place of the
// first acknowledgement.
func replyInstead(wire []byte, thenClose bool) func(net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReader(c)
		if _, _, err := testpeer.ReadMonitorFrame(r); err != nil {
			return
		}
		_, _ = c.Write(testpeer.MonitorFrame(1, `{"T":"ConnectAck"}`))
		if _, _, err := testpeer.ReadMonitorFrame(r); err != nil {
			return
		}
		_, _ = c.Write(wire)
		if !thenClose {
			_, _ = io.Copy(io.Discard, c)
		}
	}
}

// tcpErrorCase is a server's misbehaviour and the error kind it is.
type tcpErrorCase struct {
	name   string
	handle func(net.Conn) // nil: nothing listens
	want   protocols.ErrorKind
}

// tcpErrorCases are what TestTCPErrorKinds and the event loop's
// TestLoopErrorKinds put the monitor target through; its timeout is 200
// ms and its max_frame 64 bytes.
func tcpErrorCases() []tcpErrorCase {
	return []tcpErrorCase{
		{"refused", nil, protocols.KindConnect},
		{"silent server", replyInstead(nil, false), protocols.KindTimeout},
		{"closed mid-frame", replyInstead(testpeer.MonitorFrame(1, `{"T":"Ack"}`)[:9], true), protocols.KindReset},
		{"closed before replying", replyInstead(nil, true), protocols.KindReset},
		{"declared length over max_frame", replyInstead([]byte("\x00\x01\xff\xff\xff\xff"), false), protocols.KindProtocol},
		{"garbage", replyInstead([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"), false), protocols.KindProtocol},
		{"unexpected reply", replyInstead(testpeer.MonitorFrame(1, `{"T":"Error"}`), false), protocols.KindCheck},
	}
}

// errorCaseTarget is the monitor target of case tc, and its server (nil
// when nothing listens).
func errorCaseTarget(t *testing.T, tc tcpErrorCase) (*scenarios.Target, *testpeer.TCPServer) {
	addr := ""
	var srv *testpeer.TCPServer
	if tc.handle == nil {
		addr = refusedAddr(t)
	} else {
		srv = testpeer.NewTCPServer(t, tc.handle)
		addr = srv.Addr()
	}
	target := monitorTarget(addr, scenarios.Persistent)
	target.TCP.Timeout = 200 * time.Millisecond
	target.TCP.MaxFrame = 64
	return target, srv
}

func TestTCPErrorKinds(t *testing.T) {
	for _, tc := range tcpErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			target, srv := errorCaseTarget(t, tc)
			addr := target.TCP.Address
			cl := newTestTCPClient(t, target, 0)
			var out protocols.Outcome
			cl.Do(t.Context(), 0, &out)
			if out.Kind != tc.want {
				t.Fatalf("kind = %v, want %v", out.Kind, tc.want)
			}
			if out.Err == nil {
				t.Errorf("no error says why the iteration failed")
			}
			if srv == nil {
				if want := "dial tcp " + addr + ": connect: connection refused"; out.Err.Error() != want {
					t.Errorf("error %q, want %q", out.Err, want)
				}
				return
			}
			// A failed iteration leaves the stream in an unknown state: the
			// next one opens a new connection.
			cl.Do(t.Context(), 0, &out)
			if got := srv.Accepted(); got != 2 {
				t.Errorf("after a %v error the worker opened %d connections in total, want 2", tc.want, got)
			}
		})
	}
}

func TestTCPHandshakeFailureIsNotConnected(t *testing.T) {
	srv := testpeer.NewTCPServer(t, func(c net.Conn) {
		_, _, _ = testpeer.ReadMonitorFrame(bufio.NewReader(c))
		_, _ = c.Write(testpeer.MonitorFrame(1, `{"T":"Denied"}`))
	})
	cl := newTestTCPClient(t, monitorTarget(srv.Addr(), scenarios.Persistent), 0)
	var out protocols.Outcome
	cl.Do(t.Context(), 0, &out)
	if out.Kind != protocols.KindCheck || out.Connect != 0 || cl.wc.Current() != nil {
		t.Errorf("kind %v, connect %v, connection kept %v; want a check error and no connection", out.Kind, out.Connect, cl.wc.Current() != nil)
	}
}

func TestTCPCancelAndCloseInterruptDo(t *testing.T) {
	silent := func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }
	target := &scenarios.Target{Name: "t", TCP: &scenarios.TCPTarget{
		Timeout: time.Hour, MaxFrame: 1 << 20, Framing: crlfFraming,
		Iteration: []scenarios.TCPStep{tcpSend(tcpLit("PING")), tcpExpectStep("")},
	}}
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			target.TCP.Address = testpeer.NewTCPServer(t, silent).Addr()
			cl := newTestTCPClient(t, target, 0)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan protocols.ErrorKind)
			go func() {
				var out protocols.Outcome
				cl.Do(ctx, 0, &out)
				done <- out.Kind
			}()
			time.Sleep(50 * time.Millisecond)
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
			case <-time.After(5 * time.Second):
				t.Fatal("Do did not return after " + how)
			}
		})
	}
}

func TestTCPPlaceholders(t *testing.T) {
	srv := testpeer.NewAckServer(t, 0)
	tpl := scenarios.Template{Parts: []scenarios.TemplatePart{
		{Kind: scenarios.PartLiteral, Literal: []byte("w=")}, {Kind: scenarios.PartWorker},
		{Kind: scenarios.PartLiteral, Literal: []byte(" seq=")}, {Kind: scenarios.PartSeq},
		{Kind: scenarios.PartLiteral, Literal: []byte(" ts=")}, {Kind: scenarios.PartNowMS},
		{Kind: scenarios.PartLiteral, Literal: []byte(" u=")}, {Kind: scenarios.PartUUID},
		{Kind: scenarios.PartLiteral, Literal: []byte(" r=")}, {Kind: scenarios.PartRandInt, Min: -3, Max: 3},
	}}
	target := monitorTarget(srv.Addr(), scenarios.Persistent)
	target.TCP.OnConnect = nil
	target.TCP.Iteration = []scenarios.TCPStep{tcpSend(tpl), tcpExpectStep("Ack")}
	cl := newTestTCPClient(t, target, 7)
	before := time.Now().UnixMilli()
	for range 3 {
		var out protocols.Outcome
		cl.Do(t.Context(), 0, &out)
		if out.Kind != protocols.KindNone {
			t.Fatalf("kind %v", out.Kind)
		}
	}
	after := time.Now().UnixMilli()
	re := regexp.MustCompile(`^w=7 seq=(\d+) ts=(\d+) u=([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}) r=(-?\d)$`)
	uuids := map[string]bool{}
	for i, body := range srv.Received() {
		m := re.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("payload %q does not match %s", body, re)
		}
		seq, _ := strconv.Atoi(m[1])
		ts, _ := strconv.ParseInt(m[2], 10, 64)
		r, _ := strconv.Atoi(m[4])
		if seq != i+1 || ts < before || ts > after || r < -3 || r > 3 || uuids[m[3]] {
			t.Errorf("payload %d: %q", i, body)
		}
		uuids[m[3]] = true
	}
}

func BenchmarkTCPEncode(b *testing.B) {
	body := `{"T":"MonitorItemData","S":39,"D":{"UsedPhysicalMemorySize":1908174848},"TS":`
	for _, bc := range []struct {
		name string
		tpl  scenarios.Template
	}{
		{"static", tcpLit(body + `1288273090499}`)},
		{"now_ms+seq+rand_int", scenarios.Template{Parts: []scenarios.TemplatePart{
			{Kind: scenarios.PartLiteral, Literal: []byte(body)}, {Kind: scenarios.PartNowMS},
			{Kind: scenarios.PartLiteral, Literal: []byte(`,"N":`)}, {Kind: scenarios.PartSeq},
			{Kind: scenarios.PartLiteral, Literal: []byte(`,"R":`)}, {Kind: scenarios.PartRandInt, Min: 1, Max: 1000},
			{Kind: scenarios.PartLiteral, Literal: []byte(`}`)},
		}}},
		{"uuid", scenarios.Template{Parts: []scenarios.TemplatePart{
			{Kind: scenarios.PartLiteral, Literal: []byte(`{"id":"`)}, {Kind: scenarios.PartUUID},
			{Kind: scenarios.PartLiteral, Literal: []byte(`"}`)},
		}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			target := monitorTarget("127.0.0.1:1", scenarios.Persistent)
			target.TCP.Iteration[0] = tcpSend(bc.tpl)
			cl := newTestTCPClient(b, target, 0)
			op := &cl.iteration[0]
			b.ReportAllocs()
			for b.Loop() {
				cl.env.Next()
				cl.wbuf = cl.encode(cl.wbuf[:0], op, &cl.env)
			}
		})
	}
}

// BenchmarkTCPIteration measures whole persistent iterations (two
// messages, two acknowledgements) over loopback; the allocations reported
// are the client's, the server's run in other goroutines but count too.
func BenchmarkTCPIteration(b *testing.B) {
	srv := testpeer.NewTCPServer(b, func(c net.Conn) {
		r := bufio.NewReader(c)
		ack := testpeer.MonitorFrame(1, `{"T":"Ack"}`)
		var h [6]byte
		body := make([]byte, 1<<16)
		for {
			if _, err := io.ReadFull(r, h[:]); err != nil {
				return
			}
			if _, err := io.ReadFull(r, body[:binary.BigEndian.Uint32(h[2:])]); err != nil {
				return
			}
			if _, err := c.Write(ack); err != nil {
				return
			}
		}
	})
	target := monitorTarget(srv.Addr(), scenarios.Persistent)
	target.TCP.OnConnect = nil
	cl := newTestTCPClient(b, target, 0)
	benchIterations(b, cl)
}

// benchIterations measures cl's iterations, its connection made outside
// the measurement.
func benchIterations(b *testing.B, cl protocols.Client) {
	ctx := b.Context()
	var out protocols.Outcome
	cl.Do(ctx, 0, &out)
	b.ReportAllocs()
	for b.Loop() {
		cl.Do(ctx, 0, &out)
		if out.Kind != protocols.KindNone {
			b.Fatal(out.Kind)
		}
	}
}
