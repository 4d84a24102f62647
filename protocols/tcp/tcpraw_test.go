package tcp

import (
	"bufio"
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testpeer"
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// pongs answers every line it reads with +PONG, without allocating, so
// that an allocation count over a run is the client's.
func pongs(c net.Conn) {
	buf := make([]byte, 4096)
	reply := bytes.Repeat([]byte("+PONG\r\n"), len(buf))
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		lines := bytes.Count(buf[:n], []byte("\n"))
		if _, err := c.Write(reply[:7*lines]); err != nil {
			return
		}
	}
}

// TestTCPRawExchange: replies that arrive in pieces, or not at all, and a
// close while idle, end each iteration as they did through net.Conn
// alone, with every byte counted, on long and short connections.
func TestTCPRawExchange(t *testing.T) {
	pong := scenarios.TCPExpect{Equals: []byte("+PONG")}
	tests := []struct {
		name   string
		handle func(net.Conn)
		idle   time.Duration // between the two iterations
		kind   [2]protocols.ErrorKind
		recv   [2]int64
	}{
		{"whole replies", pongs, 0, [2]protocols.ErrorKind{}, [2]int64{7, 7}},
		{"a reply in three pieces", func(c net.Conn) {
			r := bufio.NewReader(c)
			for {
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
				for _, p := range []string{"+P", "ON", "G\r\n"} {
					if _, err := c.Write([]byte(p)); err != nil {
						return
					}
					time.Sleep(time.Millisecond)
				}
			}
		}, 0, [2]protocols.ErrorKind{}, [2]int64{7, 7}},
		{"no reply", func(c net.Conn) { _, _ = bufio.NewReader(c).ReadString(0) }, 0,
			[2]protocols.ErrorKind{protocols.KindTimeout, protocols.KindTimeout}, [2]int64{}},
		{"closed instead of replying", answer(""), 0,
			[2]protocols.ErrorKind{protocols.KindReset, protocols.KindReset}, [2]int64{}},
		// The close arrives while the connection is idle for longer than
		// the exchange trusts one: the next iteration reads it as usual,
		// rather than waiting for a reply the timeout would end.
		{"half-closed while idle", func(c net.Conn) {
			_, _ = bufio.NewReader(c).ReadString('\n')
			_, _ = c.Write([]byte("+PONG\r\n"))
			_ = c.(*net.TCPConn).CloseWrite()
			_, _ = bufio.NewReader(c).ReadString(0)
		}, 2 * protocols.RawIdleLimit, [2]protocols.ErrorKind{protocols.KindNone, protocols.KindReset}, [2]int64{7, 0}},
	}
	for _, tc := range tests {
		for _, conn := range []scenarios.TCPConnection{scenarios.Persistent, scenarios.PerIteration} {
			if conn == scenarios.PerIteration && tc.idle > 0 {
				continue // a short connection is never idle
			}
			t.Run(tc.name+"/"+conn.String(), func(t *testing.T) {
				srv := testpeer.NewTCPServer(t, tc.handle)
				target := redisTarget(srv.Addr(), pong)
				target.TCP.Connection = conn
				if tc.kind[0] == protocols.KindTimeout {
					// Only a case that waits for its timeout has a short one.
					target.TCP.Timeout = 300 * time.Millisecond
				}
				cl := newTestTCPClient(t, target, 0)
				for i := range 2 {
					if i == 1 {
						time.Sleep(tc.idle)
					}
					var out protocols.Outcome
					cl.Do(t.Context(), 0, &out)
					if out.Kind != tc.kind[i] {
						t.Fatalf("iteration %d: kind %v (%v), want %v", i, out.Kind, out.Err, tc.kind[i])
					}
					if out.BytesReceived != tc.recv[i] || out.BytesSent != int64(len("PING\r\n")) {
						t.Errorf("iteration %d: %d bytes sent, %d received; want 6 and %d", i, out.BytesSent, out.BytesReceived, tc.recv[i])
					}
				}
			})
		}
	}
}

// TestTCPIterationDoesNotAllocate: a persistent iteration, written and
// read through the raw exchange, allocates nothing.
func TestTCPIterationDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	srv := testpeer.NewTCPServer(t, pongs)
	cl := newTestTCPClient(t, redisTarget(srv.Addr(), scenarios.TCPExpect{Equals: []byte("+PONG")}), 0)
	var out protocols.Outcome
	cl.Do(t.Context(), 0, &out) // connects
	if !cl.rawOK {
		t.Skip("no raw exchange on this system")
	}
	allocs := testing.AllocsPerRun(1000, func() {
		cl.Do(t.Context(), 0, &out)
		if out.Kind != protocols.KindNone {
			t.Fatal(out.Kind, out.Err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per iteration, want 0", allocs)
	}
}

// BenchmarkTCPPing measures persistent PING iterations over loopback, the
// redis-benchmark case; the allocations reported include the server's,
// which makes none.
func BenchmarkTCPPing(b *testing.B) {
	srv := testpeer.NewTCPServer(b, pongs)
	cl := newTestTCPClient(b, redisTarget(srv.Addr(), scenarios.TCPExpect{Equals: []byte("+PONG")}), 0)
	benchIterations(b, cl)
}
