//go:build linux

package http1

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// countingJob is a closed-model job of limit requests on slots
// connections that records nothing but counts, allocation-free.
func countingJob(slots int, limit int64, ok *int64) *protocols.LoopJob {
	var claimed int64
	var inFlight atomic.Int64
	start := protocols.Now()
	return &protocols.LoopJob{
		Start: start, Stop: start.Add(time.Minute), End: start.Add(time.Minute), Slots: slots,
		Claim: func() bool { claimed++; return claimed <= limit },
		Pick:  func() int { return 0 },
		Done: func(_ int, _, _ time.Duration, out *protocols.Outcome) {
			if out.Kind == protocols.KindNone {
				*ok++
			}
		},
		InFlight: &inFlight,
	}
}

// loopMallocs runs limit kept-alive requests through a new loop and
// returns the heap allocations the process made meanwhile.
func loopMallocs(t testing.TB, url string, limit int64) uint64 {
	lp, why := NewLoop(http1Target(url, nil))
	if lp == nil {
		t.Fatal(why)
	}
	var ok int64
	job := countingJob(4, limit, &ok)
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

// TestLoopKeepAliveAllocatesNothing: 2000 more requests through the loop
// cost no more allocations than the loop's setting up does.
func TestLoopKeepAliveAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	url := cannedServer(t, nginxHello)
	few := loopMallocs(t, url, 100)
	many := loopMallocs(t, url, 2100)
	// A few allocations of the runtime's own may fall in either run; one
	// per request would be 2000.
	if many > few+50 {
		t.Errorf("2100 requests allocated %d times, 100 requests %d: %.2f allocations per extra request",
			many, few, float64(many-few)/2000)
	}
}

// BenchmarkLoopKeepAlive is BenchmarkHTTP1KeepAlive's exchange driven by
// the event loop: 4 kept-alive connections to a canned loopback server.
func BenchmarkLoopKeepAlive(b *testing.B) {
	url := cannedServer(b, nginxHello)
	lp, why := NewLoop(http1Target(url, nil))
	if lp == nil {
		b.Fatal(why)
	}
	var ok int64
	job := countingJob(4, int64(b.N), &ok)
	b.ReportAllocs()
	b.ResetTimer()
	if err := lp.Run(context.Background(), job); err != nil {
		b.Fatal(err)
	}
	if ok != int64(b.N) {
		b.Fatalf("%d of %d requests succeeded", ok, b.N)
	}
}
