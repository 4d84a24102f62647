package websocket

import (
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

func TestWSStepFailures(t *testing.T) {
	srv := newWSServer(t, false, echo)
	long := strings.Repeat("y", 100)
	tests := []struct {
		name      string
		onConnect []scenarios.WSStep
		steps     []scenarios.WSStep
		want      string
	}{
		{
			name:  "contains",
			steps: []scenarios.WSStep{sendText(`{"op":"error","why":"no such room"}`), contains(`"op":"joined"`)},
			want:  `step 2 (expect): message does not contain "\"op\":\"joined\"": got "{\"op\":\"error\",\"why\":\"no such room\"}"`,
		},
		{
			name:  "equals, binary",
			steps: []scenarios.WSStep{sendBinary("\x00\x01\xff"), expect(scenarios.WSExpectCheck{Equals: []byte("\x00\x01")})},
			want:  `step 2 (expect): message does not equal "\x00\x01": got "\x00\x01\xff"`,
		},
		{
			// Of several checks, the one the message fails is named.
			name: "the regex of two checks",
			steps: []scenarios.WSStep{sendText("ping x"),
				expect(scenarios.WSExpectCheck{Contains: []byte("ping"), Regex: regexp.MustCompile(`^ping [0-9]+$`)})},
			want: `step 2 (expect): message does not match /^ping [0-9]+$/: got "ping x"`,
		},
		{
			name:  "a long message",
			steps: []scenarios.WSStep{sendText(long), contains("z")},
			want:  `step 2 (expect): message does not contain "z": got "` + long[:64] + `"…`,
		},
		{
			name:  "the fourth step",
			steps: []scenarios.WSStep{sendText("a"), sendText("b"), contains("a"), contains("a")},
			want:  `step 4 (expect): message does not contain "a": got "b"`,
		},
		{
			name:      "on_connect",
			onConnect: []scenarios.WSStep{sendText("hello"), contains("welcome")},
			steps:     []scenarios.WSStep{sendText("a"), contains("a")},
			want:      `on_connect step 2 (expect): message does not contain "welcome": got "hello"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := wsTarget(srv.url("/"), scenarios.Persistent, tt.steps...)
			target.WebSocket.OnConnect = tt.onConnect
			cl := newTestClient(t, target, 0)
			var out protocols.Outcome
			cl.Do(t.Context(), 0, &out)
			if out.Kind != protocols.KindCheck || out.Err == nil {
				t.Fatalf("kind %v, error %v; want a check failure", out.Kind, out.Err)
			}
			if got := out.Err.Error(); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// frameConn answers every read with one server frame and swallows every
// write: a stand-in for a server, for counting allocations.
type frameConn struct {
	net.Conn
	frame []byte
}

func (c *frameConn) Read(b []byte) (int, error)  { return copy(b, c.frame), nil }
func (c *frameConn) Write(b []byte) (int, error) { return len(b), nil }

// TestWSFailedStepDoesNotAllocate: a failing check fills the client's own
// error, so a failing iteration costs no more garbage than a good one.
func TestWSFailedStepDoesNotAllocate(t *testing.T) {
	cl := newTestClient(t, wsTarget("ws://127.0.0.1:1/", scenarios.Persistent, sendText("join"), contains("joined")), 0)
	msg := "error: no such room"
	conn := &frameConn{frame: append([]byte{0x81, byte(len(msg))}, msg...)}
	var out protocols.Outcome
	kind := cl.run(conn, cl.iteration, &out) // buffers grow once
	allocs := testing.AllocsPerRun(1000, func() {
		out = protocols.Outcome{}
		cl.rd.reset()
		kind = cl.run(conn, cl.iteration, &out)
	})
	if kind != protocols.KindCheck || out.Err == nil {
		t.Fatalf("kind %v, error %v; want a check failure", kind, out.Err)
	}
	if allocs != 0 {
		t.Errorf("a failed step allocates %v times", allocs)
	}
	if want := `step 2 (expect): message does not contain "joined": got "error: no such room"`; out.Err.Error() != want {
		t.Errorf("error %q, want %q", out.Err, want)
	}
}
