package websocket

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// BenchmarkWebSocketIteration measures persistent iterations of one
// message sent and its echo read, against an in-process echo server, so a
// message here is one round trip. Besides ns/op and allocs/op (the
// server's goroutines allocate nothing, so the allocations are the
// client's) it reports msgs/s, and CPU per message: the client's own
// (the benchmark's goroutine is locked to its thread and that thread's CPU
// time is read) and the whole process's, server included.
func BenchmarkWebSocketIteration(b *testing.B) {
	for _, bc := range []struct {
		name string
		send scenarios.WSStep
		size int
	}{
		{"text-32B", sendText("ping 0123456789 0123456789 01234"), 32},
		{"binary-4KiB", sendBinary(string(bytes.Repeat([]byte{0xa5}, 4096))), 4096},
		{"text-placeholders", scenarios.WSStep{Kind: scenarios.WSSendText, Payload: scenarios.Template{Parts: []scenarios.TemplatePart{
			{Kind: scenarios.PartLiteral, Literal: []byte(`{"op":"ping","seq":`)}, {Kind: scenarios.PartSeq},
			{Kind: scenarios.PartLiteral, Literal: []byte(`,"id":"`)}, {Kind: scenarios.PartUUID},
			{Kind: scenarios.PartLiteral, Literal: []byte(`"}`)},
		}}}, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := newWSServer(b, false, echo)
			target := wsTarget(srv.url("/"), scenarios.Persistent, bc.send, contains("p"))
			if bc.size > 100 {
				target.WebSocket.Iteration[1] = expect(scenarios.WSExpectCheck{})
			}
			cl := newTestClient(b, target, 0)
			ctx := b.Context()
			var out protocols.Outcome
			cl.Do(ctx, 0, &out) // connect outside the measurement
			if out.Kind != protocols.KindNone {
				b.Fatal(out.Kind, out.Err)
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			thread0, proc0, cpuOK := cpuTimes()
			began := time.Now()
			b.ReportAllocs()
			for b.Loop() {
				cl.Do(ctx, 0, &out)
				if out.Kind != protocols.KindNone {
					b.Fatal(out.Kind, out.Err)
				}
			}
			elapsed := time.Since(began)
			thread1, proc1, _ := cpuTimes()
			n := float64(b.N)
			b.ReportMetric(n/elapsed.Seconds(), "msgs/s")
			if cpuOK {
				b.ReportMetric(float64(thread1-thread0)/n, "client-cpu-ns/msg")
				b.ReportMetric(float64(proc1-proc0)/n, "process-cpu-ns/msg")
			}
		})
	}
}
