//go:build linux

package http2

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
)

// FuzzLoopFrames has a server answer the loop's preface with its
// SETTINGS and then any bytes, and close: whatever they are, every request
// the loop sent ends in exactly one outcome, and the loop returns.
func FuzzLoopFrames(f *testing.F) {
	for _, seed := range [][]byte{
		cannedAnswer,
		{0, 0, 0, frameSettings, flagAck, 0, 0, 0, 0},
		{0, 0, 8, framePing, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8},
		{0, 0, 4, frameRSTStream, 0, 0, 0, 0, 1, 0, 0, 0, 7},
		{0, 0, 8, frameGoAway, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 2, frameHeaders, flagEndHeaders | flagPadded, 0, 0, 0, 1, 5, 0x88},
		{0, 0, 1, frameHeaders, 0, 0, 0, 0, 1, 0x88, 0, 0, 1, frameContinuation, flagEndHeaders, 0, 0, 0, 1, 0x88},
		{0, 0, 4, frameWindowUpdate, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		[]byte("HTTP/1.1 400 Bad Request\r\n\r\n"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					if _, err := io.ReadFull(c, make([]byte, len(http2.ClientPreface))); err != nil {
						return
					}
					_, _ = c.Write(append([]byte{0, 0, 0, frameSettings, 0, 0, 0, 0, 0}, b...))
					_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
					_, _ = io.Copy(io.Discard, c)
				}()
			}
		}()
		lp, why := NewLoop(h2Target("http://"+ln.Addr().String()+"/", 1), 1)
		if lp == nil {
			t.Fatal(why)
		}
		var claimed, done int
		start := protocols.Now()
		job := &protocols.LoopJob{Start: start, Stop: start.Add(time.Second), End: start.Add(time.Second), Slots: 2,
			Claim:    func() bool { claimed++; return claimed <= 4 },
			Pick:     func() int { return 0 },
			Done:     func(_ int, _, _, _ time.Duration, _ *protocols.Outcome) { done++ },
			InFlight: new(atomic.Int64)}
		if err := lp.Run(context.Background(), job); err != nil {
			t.Fatal(err)
		}
		if sent := min(claimed, 4); done != sent {
			t.Fatalf("%d requests sent, %d recorded", sent, done)
		}
	})
}
