//go:build linux

package tcp

import (
	"context"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testpeer"
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// loopRecord is one request a loop recorded.
type loopRecord struct {
	out protocols.Outcome
	err string
}

// loopRun runs a closed-model job of limit requests on slots connections
// through target's loop (open: an open-model one, an arrival every
// millisecond), until stop after its start and a graceful stop of grace,
// and returns every request recorded and how many were sent.
func loopRun(t *testing.T, ctx context.Context, target *scenarios.Target, slots, limit int, open bool, stop, grace time.Duration) ([]loopRecord, int64) {
	t.Helper()
	lp, why := NewLoop(target)
	if lp == nil {
		t.Fatal(why)
	}
	var recs []loopRecord
	var claimed, sent int64
	var inFlight atomic.Int64
	start := protocols.Now()
	job := &protocols.LoopJob{
		Start: start, Stop: start.Add(stop), End: start.Add(stop + grace), Slots: slots,
		Claim: func() bool {
			if claimed++; claimed > int64(limit) {
				return false
			}
			sent++
			return true
		},
		Pick: func() int { return 0 },
		Done: func(_ int, _, _, _ time.Duration, out *protocols.Outcome) {
			r := loopRecord{out: *out}
			if out.Err != nil {
				r.err = out.Err.Error()
			}
			r.out.Err = nil
			recs = append(recs, r)
		},
		InFlight: &inFlight,
	}
	if open {
		job.Arrival = func(i int64) (time.Duration, bool) { return time.Duration(i) * time.Millisecond, i < int64(limit) }
		job.Late = func(time.Duration) {}
		job.Sent = new(atomic.Int64)
		job.IdleHandoff = func() {}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := lp.Run(ctx, job); err != nil {
		t.Fatal(err)
	}
	if open {
		sent = job.Sent.Load()
	}
	if inFlight.Load() != 0 {
		t.Errorf("%d requests still in flight after Run", inFlight.Load())
	}
	return recs, sent
}

// workerOutcomes is what the worker client reports of target's first two
// iterations: one that opens the connection, one that does not.
func workerOutcomes(t *testing.T, target *scenarios.Target) (opening, kept protocols.Outcome) {
	cl := newTestTCPClient(t, target, 0)
	cl.Do(t.Context(), 0, &opening)
	cl.Do(t.Context(), 0, &kept)
	return opening, kept
}

// TestLoopAnswersAsWorkers: the monitor study's target, on_connect and two
// acknowledged messages per iteration, runs on the loop with every request
// a success, connect time exactly where a connection was opened, and the
// bytes the worker client counts for the same iteration; in the open model
// too, where every arrival ends in one record.
func TestLoopAnswersAsWorkers(t *testing.T) {
	for _, tc := range []struct {
		conn     scenarios.TCPConnection
		open     bool
		connects int
	}{
		{scenarios.Persistent, false, 3},
		{scenarios.PerIteration, false, 30},
		{scenarios.PerIteration, true, 30},
	} {
		t.Run(tc.conn.String(), func(t *testing.T) {
			srv := testpeer.NewAckServer(t, 0)
			target := monitorTarget(srv.Addr(), tc.conn)
			opening, kept := workerOutcomes(t, target)
			recs, sent := loopRun(t, t.Context(), target, 3, 30, tc.open, time.Minute, time.Minute)
			if len(recs) != 30 || sent != 30 {
				t.Fatalf("%d requests recorded, %d sent, want 30", len(recs), sent)
			}
			connects := 0
			for i, r := range recs {
				want := kept
				if r.out.Connect > 0 {
					connects++
					want = opening
				}
				if r.out.Kind != protocols.KindNone || r.out.BytesSent != want.BytesSent || r.out.BytesReceived != want.BytesReceived {
					t.Errorf("request %d: %v %q, bytes %d/%d, want success and %d/%d", i, r.out.Kind, r.err,
						r.out.BytesSent, r.out.BytesReceived, want.BytesSent, want.BytesReceived)
				}
			}
			workers := int64(1) // the worker's two iterations opened one connection, or two
			if tc.conn == scenarios.PerIteration {
				workers = 2
			}
			if connects != tc.connects || srv.Accepted() != int64(tc.connects)+workers {
				t.Errorf("%d requests opened a connection, the server accepted %d; want %d (and the worker's %d)",
					connects, srv.Accepted(), tc.connects, workers)
			}
		})
	}
}

// TestLoopErrorKinds: each misbehaviour of the worker client's table fails
// the loop's request with the same kind (and a check the same words), and
// the next request opens a new connection.
func TestLoopErrorKinds(t *testing.T) {
	for _, tc := range tcpErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			target, srv := errorCaseTarget(t, tc)
			var worker protocols.Outcome
			newTestTCPClient(t, target, 0).Do(t.Context(), 0, &worker)
			recs, _ := loopRun(t, t.Context(), target, 1, 2, false, time.Minute, time.Minute)
			if len(recs) != 2 {
				t.Fatalf("%d requests recorded, want 2", len(recs))
			}
			for i, r := range recs {
				if r.out.Kind != tc.want || r.err == "" {
					t.Errorf("request %d: kind %v (%q), want %v with its reason", i, r.out.Kind, r.err, tc.want)
				}
			}
			if tc.want == protocols.KindCheck || tc.want == protocols.KindConnect {
				if recs[0].err != worker.Err.Error() {
					t.Errorf("the loop says %q, the worker %q", recs[0].err, worker.Err)
				}
			}
			if srv != nil && srv.Accepted() != 3 {
				t.Errorf("the server accepted %d connections, want 3: the worker's and one per failed request", srv.Accepted())
			}
		})
	}
}

// frozenServer takes connections and what they send, and never answers.
func frozenServer(t *testing.T) *testpeer.TCPServer {
	return testpeer.NewTCPServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
}

// TestLoopPhaseEnd: requests a frozen server never answers end, every
// one, as unfinished at the phase's end, or as stopped when the run is
// cancelled; none vanishes.
func TestLoopPhaseEnd(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool
		want   error
	}{
		{"graceful stop over", false, protocols.ErrUnfinished},
		{"run cancelled", true, protocols.ErrStopped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := pongTarget(frozenServer(t).Addr())
			target.TCP.Timeout = time.Hour
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			grace := 100 * time.Millisecond
			if tc.cancel {
				grace = time.Hour
				time.AfterFunc(200*time.Millisecond, cancel)
			}
			recs, sent := loopRun(t, ctx, target, 4, 1000, true, 50*time.Millisecond, grace)
			if sent == 0 || int64(len(recs)) != sent {
				t.Fatalf("%d sent, %d recorded: every request sent must end in one record", sent, len(recs))
			}
			for i, r := range recs {
				if r.out.Kind != protocols.KindUnfinished || r.err != tc.want.Error() {
					t.Errorf("request %d: %v %q, want unfinished: %q", i, r.out.Kind, r.err, tc.want)
				}
			}
		})
	}
}

// TestLoopRendersPerRequest: a payload with {{seq}} is rendered anew for
// every request of a slot, as a worker renders it per iteration.
func TestLoopRendersPerRequest(t *testing.T) {
	srv := pongServer(t)
	target := pongTarget(srv.Addr())
	target.TCP.Iteration[0].Payload = scenarios.Template{Parts: []scenarios.TemplatePart{
		{Kind: scenarios.PartLiteral, Literal: []byte("PING ")}, {Kind: scenarios.PartSeq},
	}}
	recs, _ := loopRun(t, t.Context(), target, 1, 12, false, time.Minute, time.Minute)
	var sent int64
	for _, r := range recs {
		if r.out.Kind != protocols.KindNone {
			t.Fatalf("%v %q", r.out.Kind, r.err)
		}
		sent += r.out.BytesSent
	}
	// "PING 1\r\n" … "PING 9\r\n" are 8 bytes, "PING 10\r\n" … 9.
	if want := int64(9*8 + 3*9); sent != want {
		t.Errorf("12 requests sent %d bytes, want %d: {{seq}} is not rendered per request", sent, want)
	}
}

// TestLoopRefuses: only a TCP target to this machine's own addresses runs
// on the loop.
func TestLoopRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target *scenarios.Target
		why    string
	}{
		{"no tcp block", &scenarios.Target{Name: "h"}, "not a TCP target"},
		{"no port", pongTarget("127.0.0.1"), "missing port"},
		{"a name beyond", pongTarget("loadgate.invalid:6379"), "workers' dialer"},
		{"{{worker}}", workerTarget(), "{{worker}}"},
	} {
		lp, why := NewLoop(tc.target)
		if lp != nil || !strings.Contains(why, tc.why) {
			t.Errorf("%s: loop %v, why %q; want none, %q", tc.name, lp != nil, why, tc.why)
		}
	}
}

// workerTarget renders {{worker}} into its PING.
func workerTarget() *scenarios.Target {
	t := pongTarget("127.0.0.1:6379")
	t.TCP.Iteration[0].Payload.Parts = append(t.TCP.Iteration[0].Payload.Parts, scenarios.TemplatePart{Kind: scenarios.PartWorker})
	return t
}
