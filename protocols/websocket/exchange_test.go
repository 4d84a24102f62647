package websocket

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// TestWSExchange checks the messages of a persistent connection whose
// frames go out inside the wait for their echo: each echo is the one of
// its own message, the bytes sent are counted, a connection left idle
// takes the usual path and comes back to the exchange, and a message too
// big for one write still goes out whole.
func TestWSExchange(t *testing.T) {
	big := strings.Repeat("x", 8<<20)
	for _, tc := range []struct {
		name  string
		msg   string
		pause time.Duration // before every other iteration
	}{
		{"back to back", "ping", 0},
		{"idle in between", "ping", 2 * exchangeIdle},
		{"larger than the send buffer", big, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got messages
			srv := newWSServer(t, false, recordingEcho(&got))
			target := wsTarget(srv.url("/"), scenarios.Persistent, sendText(tc.msg),
				expect(scenarios.WSExpectCheck{Equals: []byte(tc.msg)}))
			target.WebSocket.MaxMessage = 16 << 20
			cl := newTestClient(t, target, 0)
			for i := range 6 {
				if i%2 == 1 {
					time.Sleep(tc.pause)
				}
				var out protocols.Outcome
				cl.Do(t.Context(), 0, &out)
				if out.Kind != protocols.KindNone {
					t.Fatalf("iteration %d: kind %v (%v)", i, out.Kind, out.Err)
				}
				if min := int64(len(tc.msg)); out.BytesSent < min || out.BytesSent > min+14 {
					t.Errorf("iteration %d: %d bytes sent for a message of %d", i, out.BytesSent, len(tc.msg))
				}
			}
			if protocols.RawSupported && !cl.x.ok {
				t.Error("the connection is not driven raw")
			}
			if n := len(got.all()); n != 6 || srv.accepted.Load() != 1 {
				t.Errorf("server got %d messages on %d connections, want 6 on 1", n, srv.accepted.Load())
			}
		})
	}
}

// TestWSExchangeServerGone checks that a message sent on a connection the
// server has closed fails at once, as a reset, and the next iteration
// opens a new connection.
func TestWSExchangeServerGone(t *testing.T) {
	srv := newWSServer(t, false, func(conn net.Conn, rw *bufio.ReadWriter) {
		echoOnce(conn, rw)
	})
	target := wsTarget(srv.url("/"), scenarios.Persistent, sendText("a"), contains("a"))
	cl := newTestClient(t, target, 0)
	want := []protocols.ErrorKind{protocols.KindNone, protocols.KindReset, protocols.KindNone}
	for i, w := range want {
		start := time.Now()
		var out protocols.Outcome
		cl.Do(t.Context(), 0, &out)
		if out.Kind != w || time.Since(start) > 2*time.Second {
			t.Errorf("iteration %d: kind %v (%v) after %v, want %v", i, out.Kind, out.Err, time.Since(start), w)
		}
	}
}

// echoOnce echoes one message and closes the connection.
func echoOnce(conn net.Conn, rw *bufio.ReadWriter) {
	var scratch frameScratch
	op, p, err := readClientFrame(rw.Reader, &scratch, make([]byte, 1<<10))
	if err == nil && !op.IsControl() {
		_, _ = conn.Write(appendServerFrame(nil, ws.OpText, p))
	}
}
