//go:build linux

package http1

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

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
		Done: func(_ int, _, _, _ time.Duration, out *protocols.Outcome) {
			if out.Kind == protocols.KindNone {
				*ok++
			}
		},
		InFlight: &inFlight,
	}
}

// behind makes job an open-model one of limit arrivals all due at once.
func behind(job *protocols.LoopJob, limit int64) {
	job.Arrival = func(i int64) (time.Duration, bool) { return 0, i < limit }
	job.Late = func(time.Duration) {}
	job.Sent = new(atomic.Int64)
	job.IdleHandoff = func() {}
}

// loopMallocs runs limit kept-alive requests through a new loop, of the
// open model when open, and returns the heap allocations the process made
// meanwhile.
func loopMallocs(t testing.TB, url string, limit int64, open bool) uint64 {
	lp, why := NewLoop(http1Target(url, insecure))
	if lp == nil {
		t.Fatal(why)
	}
	var ok int64
	job := countingJob(4, limit, &ok)
	if open {
		behind(job, limit)
	}
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
// cost no more allocations than the loop's setting up does, in either
// model. Over TLS, crypto/tls makes one of its own for each record it
// reads (readFromUntil's atLeastReader escapes), on either end of the
// connection: a request's share is those two, and nothing of the loop's.
func TestLoopKeepAliveAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	for _, tc := range []struct {
		url        string
		perRequest uint64
	}{
		{cannedServer(t, nginxHello), 0},
		{tlsCannedServer(t, nginxHello), 2},
	} {
		for _, open := range []bool{false, true} {
			few := loopMallocs(t, tc.url, 100, open)
			many := loopMallocs(t, tc.url, 2100, open)
			// A few allocations of the runtime's own may fall in either
			// run; one more per request would be 2000.
			if many > few+2000*tc.perRequest+50 {
				t.Errorf("%s, open model %v: 2100 requests allocated %d times, 100 requests %d: %.2f allocations per extra request, want %d",
					tc.url, open, many, few, float64(many-few)/2000, tc.perRequest)
			}
		}
	}
}

// BenchmarkLoopKeepAlive is BenchmarkHTTP1KeepAlive's exchange driven by
// the event loop: 4 kept-alive connections to a canned loopback server.
func BenchmarkLoopKeepAlive(b *testing.B) {
	benchLoop(b, cannedServer(b, nginxHello))
}

// BenchmarkLoopTLSKeepAlive is BenchmarkLoopKeepAlive over TLS.
func BenchmarkLoopTLSKeepAlive(b *testing.B) {
	benchLoop(b, tlsCannedServer(b, nginxHello))
}

func benchLoop(b *testing.B, url string) {
	lp, why := NewLoop(http1Target(url, insecure))
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

// BenchmarkLoopOpenBehind drives the open model behind its schedule: every
// arrival is due at once, so the loop sends in bursts between looks at
// its sockets, on at most 64 kept-alive connections.
func BenchmarkLoopOpenBehind(b *testing.B) {
	url := cannedServer(b, nginxHello)
	lp, why := NewLoop(http1Target(url, nil))
	if lp == nil {
		b.Fatal(why)
	}
	var ok int64
	n := int64(b.N)
	job := countingJob(64, n, &ok)
	behind(job, n)
	b.ReportAllocs()
	b.ResetTimer()
	if err := lp.Run(context.Background(), job); err != nil {
		b.Fatal(err)
	}
	if ok != n {
		b.Fatalf("%d of %d requests succeeded", ok, n)
	}
}

// A million connections must fit in a gigabyte of the generator's memory:
// what HTTP keeps of a slot adds at most this to the engine's (see
// evloop's TestSlotBytes), and a waiting connection takes nothing more
// (see takeRead).
func TestLoopSlotBytes(t *testing.T) {
	const maxHTTPSlotBytes = 40
	if n := unsafe.Sizeof(httpSlot{}); n > maxHTTPSlotBytes {
		t.Errorf("httpSlot is %d bytes, want at most %d", n, maxHTTPSlotBytes)
	}
}
