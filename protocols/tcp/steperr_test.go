package tcp

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testpeer"
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// redisTarget sends PING and expects +PONG, one line each.
func redisTarget(addr string, expect scenarios.TCPExpect) *scenarios.Target {
	return &scenarios.Target{Name: "redis", TCP: &scenarios.TCPTarget{
		Address: addr, Timeout: 5 * time.Second, MaxFrame: 1 << 10, Framing: crlfFraming,
		Iteration: []scenarios.TCPStep{tcpSend(tcpLit("PING")), {Kind: scenarios.StepExpect, Expect: expect}},
	}}
}

// answer is a server that reads a line, writes reply and closes.
func answer(reply string) func(net.Conn) {
	return func(c net.Conn) {
		_, _ = bufio.NewReader(c).ReadString('\n')
		_, _ = io.WriteString(c, reply)
	}
}

func TestTCPStepFailures(t *testing.T) {
	pong := scenarios.TCPExpect{Contains: []byte("+PONG")}
	long := strings.Repeat("x", 100)
	tests := []struct {
		name   string
		target func(addr string) *scenarios.Target
		handle func(net.Conn)
		kind   protocols.ErrorKind
		want   string
	}{
		{
			name:   "a reply without what the step expects",
			target: func(a string) *scenarios.Target { return redisTarget(a, pong) },
			handle: answer("-ERR unknown command 'PING'\r\n"),
			kind:   protocols.KindCheck,
			want:   `step 2 (expect): reply does not contain "+PONG": got "-ERR unknown command 'PING'"`,
		},
		{
			name: "a reply other than the one expected",
			target: func(a string) *scenarios.Target {
				return redisTarget(a, scenarios.TCPExpect{Equals: []byte("+PONG")})
			},
			handle: answer("+PANG\r\n"),
			kind:   protocols.KindCheck,
			want:   `step 2 (expect): reply does not equal "+PONG": got "+PANG"`,
		},
		{
			name:   "an empty reply",
			target: func(a string) *scenarios.Target { return redisTarget(a, pong) },
			handle: answer("\r\n"),
			kind:   protocols.KindCheck,
			want:   `step 2 (expect): reply does not contain "+PONG": got ""`,
		},
		{
			// 64 bytes of a longer reply, then "…".
			name:   "a long reply",
			target: func(a string) *scenarios.Target { return redisTarget(a, pong) },
			handle: answer(long + "\r\n"),
			kind:   protocols.KindCheck,
			want:   `step 2 (expect): reply does not contain "+PONG": got "` + long[:64] + `"…`,
		},
		{
			// What arrived of the reply shows how far it got.
			name:   "closed in the middle of the reply",
			target: func(a string) *scenarios.Target { return redisTarget(a, pong) },
			handle: answer("+PO"),
			kind:   protocols.KindReset,
			want:   `step 2 (expect): the server closed the connection in the middle of the reply (unexpected EOF): got "+PO"`,
		},
		{
			name:   "closed before replying",
			target: func(a string) *scenarios.Target { return redisTarget(a, pong) },
			handle: answer(""),
			kind:   protocols.KindReset,
			want:   `step 2 (expect): the server closed the connection before replying (EOF)`,
		},
		{
			// A binary header is escaped byte by byte.
			name: "a frame declared too large",
			target: func(a string) *scenarios.Target {
				tg := monitorTarget(a, scenarios.Persistent)
				tg.TCP.MaxFrame = 64
				tg.TCP.OnConnect = nil
				return tg
			},
			handle: func(c net.Conn) {
				_, _, _ = testpeer.ReadMonitorFrame(bufio.NewReader(c))
				_, _ = c.Write([]byte("\x00\x01\xff\xff\xff\xff"))
			},
			kind: protocols.KindProtocol,
			want: `step 2 (expect): frame larger than max_frame: got "\x00\x01\xff\xff\xff\xff"`,
		},
		{
			// A step of on_connect says so.
			name:   "on_connect",
			target: func(a string) *scenarios.Target { return monitorTarget(a, scenarios.Persistent) },
			handle: func(c net.Conn) {
				_, _, _ = testpeer.ReadMonitorFrame(bufio.NewReader(c))
				_, _ = c.Write(testpeer.MonitorFrame(1, `{"T":"Denied","Why":"no such agent"}`))
			},
			kind: protocols.KindCheck,
			want: `on_connect step 2 (expect): reply does not contain "ConnectAck": got "{\"T\":\"Denied\",\"Why\":\"no such agent\"}"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := testpeer.NewTCPServer(t, tt.handle)
			cl := newTestTCPClient(t, tt.target(srv.Addr()), 0)
			var out protocols.Outcome
			cl.Do(t.Context(), 0, &out)
			if out.Kind != tt.kind || out.Err == nil {
				t.Fatalf("kind %v, error %v; want %v", out.Kind, out.Err, tt.kind)
			}
			if got := out.Err.Error(); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// replyConn is a connection that answers every read with reply and
// swallows every write: a stand-in for a server, for counting allocations.
type replyConn struct {
	net.Conn
	reply []byte
}

func (c *replyConn) Read(b []byte) (int, error)  { return copy(b, c.reply), nil }
func (c *replyConn) Write(b []byte) (int, error) { return len(b), nil }

// TestTCPFailedStepDoesNotAllocate: a failing check fills the client's own
// error, so a server answering every request with an error costs no more
// garbage than one answering it well.
func TestTCPFailedStepDoesNotAllocate(t *testing.T) {
	cl := newTestTCPClient(t, redisTarget("127.0.0.1:1", scenarios.TCPExpect{Contains: []byte("+PONG")}), 0)
	conn := &replyConn{reply: []byte("-ERR unknown command\r\n")}
	var out protocols.Outcome
	kind := cl.run(conn, cl.iteration, false, &out) // the read buffer is made once
	allocs := testing.AllocsPerRun(1000, func() {
		out = protocols.Outcome{}
		cl.rd.reset()
		kind = cl.run(conn, cl.iteration, false, &out)
	})
	if kind != protocols.KindCheck || out.Err == nil {
		t.Fatalf("kind %v, error %v; want a check failure", kind, out.Err)
	}
	if allocs != 0 {
		t.Errorf("a failed step allocates %v times", allocs)
	}
	if want := `step 2 (expect): reply does not contain "+PONG": got "-ERR unknown command"`; out.Err.Error() != want {
		t.Errorf("error %q, want %q", out.Err, want)
	}
}
