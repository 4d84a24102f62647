//go:build linux

package http2

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
)

// cannedH2Server is an h2c server that answers every request's HEADERS
// frame with a canned "200, hello" (HEADERS with the static table's
// :status 200, then DATA ending the stream) and allocates nothing per
// request, so that the allocations of a process that holds it and a
// loop are the loop's. It returns the server's URL.
func cannedH2Server(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveCannedH2(c)
		}
	}()
	tb.Cleanup(func() { _ = ln.Close(); <-done })
	return "http://" + ln.Addr().String() + "/"
}

// cannedAnswer is the frames of one response, stream ids to fill in at
// bytes 5 and 19.
var cannedAnswer = []byte{
	0, 0, 1, frameHeaders, flagEndHeaders, 0, 0, 0, 0, 0x88,
	0, 0, 5, frameData, flagEndStream, 0, 0, 0, 0, 'h', 'e', 'l', 'l', 'o',
}

func serveCannedH2(c net.Conn) {
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	// The server's SETTINGS (none) and its acknowledgement of the client's.
	if _, err := c.Write([]byte{0, 0, 0, frameSettings, 0, 0, 0, 0, 0, 0, 0, 0, frameSettings, flagAck, 0, 0, 0, 0}); err != nil {
		return
	}
	in, out := make([]byte, 64<<10), make([]byte, 0, 64<<10)
	have := 0
	for {
		n, err := c.Read(in[have:])
		if err != nil {
			return
		}
		have += n
		used := 0
		for have-used >= frameHeaderLen {
			f := in[used:have]
			size := int(f[0])<<16 | int(f[1])<<8 | int(f[2])
			if len(f) < frameHeaderLen+size {
				break
			}
			if f[3] == frameHeaders {
				id := binary.BigEndian.Uint32(f[5:9])
				at := len(out)
				out = append(out, cannedAnswer...)
				binary.BigEndian.PutUint32(out[at+5:], id)
				binary.BigEndian.PutUint32(out[at+15:], id)
			}
			used += frameHeaderLen + size
		}
		have = copy(in, in[used:have])
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return
			}
			out = out[:0]
		}
	}
}

// countingJob is a closed-model job of limit requests on slots that
// records nothing but counts, allocation-free.
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

// loopMallocs runs limit requests through a new loop of 40 streams over
// 4 connections, of the open model when open (every arrival due at once),
// and returns the heap allocations the process made meanwhile.
func loopMallocs(t testing.TB, url string, limit int64, open bool) uint64 {
	lp, why := NewLoop(h2Target(url, 4), 4)
	if lp == nil {
		t.Fatal(why)
	}
	var ok int64
	job := countingJob(40, limit, &ok)
	if open {
		job.Arrival = func(i int64) (time.Duration, bool) { return 0, i < limit }
		job.Late = func(time.Duration) {}
		job.Sent = new(atomic.Int64)
		job.IdleHandoff = func() {}
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

// TestLoopAllocatesNothing: 4000 more requests through the loop cost no
// more allocations than its setting up does, in either model.
func TestLoopAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	url := cannedH2Server(t)
	for _, open := range []bool{false, true} {
		few := loopMallocs(t, url, 200, open)
		many := loopMallocs(t, url, 4200, open)
		// A few allocations of the runtime's own may fall in either run;
		// one per request would be 4000.
		if many > few+50 {
			t.Errorf("open model %v: 4200 requests allocated %d times, 200 requests %d: %.2f allocations per extra request",
				open, many, few, float64(many-few)/4000)
		}
	}
}

// BenchmarkLoop drives 40 streams over 4 h2c connections to the canned
// server from the event loop.
func BenchmarkLoop(b *testing.B) {
	url := cannedH2Server(b)
	lp, why := NewLoop(h2Target(url, 4), 4)
	if lp == nil {
		b.Fatal(why)
	}
	var ok int64
	job := countingJob(40, int64(b.N), &ok)
	b.ReportAllocs()
	b.ResetTimer()
	if err := lp.Run(context.Background(), job); err != nil {
		b.Fatal(err)
	}
	if ok != int64(b.N) {
		b.Fatalf("%d of %d requests succeeded", ok, b.N)
	}
}

// What HTTP/2 keeps of a slot stays small: the open model may hold a
// million of them.
func TestLoopSlotBytes(t *testing.T) {
	const maxH2SlotBytes = 32
	if n := unsafe.Sizeof(h2Slot{}); n > maxH2SlotBytes {
		t.Errorf("h2Slot is %d bytes, want at most %d", n, maxH2SlotBytes)
	}
}
