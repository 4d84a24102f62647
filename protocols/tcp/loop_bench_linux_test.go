//go:build linux

package tcp

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testpeer"
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// pongTarget is redis's PING on a line-framed target of addr, whose server
// pongServer is.
func pongTarget(addr string) *scenarios.Target {
	return &scenarios.Target{Name: "redis", TCP: &scenarios.TCPTarget{
		Address: addr, Timeout: 5 * time.Second, MaxFrame: 1 << 20,
		Framing:   scenarios.Framing{Kind: scenarios.FramingLine, Delimiter: []byte("\r\n")},
		Iteration: []scenarios.TCPStep{tcpSend(tcpLit("PING")), {Kind: scenarios.StepExpect, Expect: scenarios.TCPExpect{Equals: []byte("+PONG")}}},
	}}
}

// pongServer answers every line with +PONG, as redis answers PING.
func pongServer(t testing.TB) *testpeer.TCPServer {
	return testpeer.NewTCPServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		pong := []byte("+PONG\r\n")
		for {
			if _, err := r.ReadSlice('\n'); err != nil {
				return
			}
			if _, err := c.Write(pong); err != nil {
				return
			}
		}
	})
}

// pongJob is a closed-model job of limit requests on slots connections
// that only counts successes, allocation-free; with open, an open-model
// one whose arrivals are all due at once.
func pongJob(slots int, limit int64, open bool, ok *int64) *protocols.LoopJob {
	var claimed int64
	start := protocols.Now()
	job := &protocols.LoopJob{
		Start: start, Stop: start.Add(time.Minute), End: start.Add(time.Minute), Slots: slots,
		Claim: func() bool { claimed++; return claimed <= limit },
		Pick:  func() int { return 0 },
		Done: func(_ int, _, _, _ time.Duration, out *protocols.Outcome) {
			if out.Kind == protocols.KindNone {
				*ok++
			}
		},
		InFlight: new(atomic.Int64),
	}
	if open {
		job.Arrival = func(i int64) (time.Duration, bool) { return 0, i < limit }
		job.Late = func(time.Duration) {}
		job.Sent = new(atomic.Int64)
		job.IdleHandoff = func() {}
	}
	return job
}

// pongMallocs runs limit requests through a new loop and returns the heap
// allocations the process made meanwhile, the server's included.
func pongMallocs(t testing.TB, addr string, limit int64, open bool) uint64 {
	lp, why := NewLoop(pongTarget(addr))
	if lp == nil {
		t.Fatal(why)
	}
	var ok int64
	job := pongJob(4, limit, open, &ok)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := lp.Run(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if ok != limit {
		t.Fatalf("%d of %d requests succeeded", ok, limit)
	}
	return after.Mallocs - before.Mallocs
}

// TestLoopPersistentAllocatesNothing: 2000 more requests through the loop
// cost no more allocations than its setting up does, in either model.
func TestLoopPersistentAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	srv := pongServer(t)
	for _, open := range []bool{false, true} {
		few := pongMallocs(t, srv.Addr(), 100, open)
		many := pongMallocs(t, srv.Addr(), 2100, open)
		// A few allocations of the runtime's own may fall in either run;
		// one per request would be 2000.
		if many > few+50 {
			t.Errorf("open model %v: 2100 requests allocated %d times, 100 requests %d: %.2f allocations per extra request",
				open, many, few, float64(many-few)/2000)
		}
	}
}

// BenchmarkLoopPersistent drives PING over 4 persistent connections from
// the event loop; the server's allocations count too.
func BenchmarkLoopPersistent(b *testing.B) {
	srv := pongServer(b)
	lp, why := NewLoop(pongTarget(srv.Addr()))
	if lp == nil {
		b.Fatal(why)
	}
	var ok int64
	job := pongJob(4, int64(b.N), false, &ok)
	b.ReportAllocs()
	b.ResetTimer()
	if err := lp.Run(context.Background(), job); err != nil {
		b.Fatal(err)
	}
	if ok != int64(b.N) {
		b.Fatalf("%d of %d requests succeeded", ok, b.N)
	}
}
