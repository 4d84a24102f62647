//go:build linux

package http1

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// TestLoopReadsWhileBehind: an open model far behind its schedule, with
// room for a million requests in flight, reads its answers between bursts
// of sends and reuses the connections they free, rather than sending every
// due arrival on a new connection first and reading nothing meanwhile.
func TestLoopReadsWhileBehind(t *testing.T) {
	srv := newCountingServer(t, hello)
	const arrivals = 5000
	var lt loopTally
	job := lt.job(1_000_000, arrivals, 0)
	job.Arrival = func(i int64) (time.Duration, bool) { return 0, i < arrivals } // all due at once
	job.Late = func(time.Duration) {}
	job.Sent = &lt.sent
	job.IdleHandoff = func() {}
	sentAtFirst := int64(-1)
	done := job.Done
	job.Done = func(req int, at, latency, lag time.Duration, out *protocols.Outcome) {
		if sentAtFirst < 0 {
			sentAtFirst = lt.sent.Load()
		}
		done(req, at, latency, lag, out)
	}
	runLoop(t, http1Target(srv.URL+"/", nil), job)
	if lt.kinds[protocols.KindNone] != arrivals {
		t.Fatalf("kinds %v (errors %q), want %d successes", lt.kinds, first(lt.errs), arrivals)
	}
	if sentAtFirst >= arrivals {
		t.Errorf("the first answer was read after all %d arrivals were sent", arrivals)
	}
	if n := srv.accepts.Load(); n > arrivals/2 {
		t.Errorf("%d connections for %d arrivals: the loop opened one for most arrivals", n, arrivals)
	}
}

// TestLoopStopSendingLateness: the arrivals due by the stop and never sent
// are the loop's own lateness, unless max_in_flight requests were
// outstanding then.
func TestLoopStopSendingLateness(t *testing.T) {
	start := protocols.Now()
	stop := start.Add(100 * time.Millisecond)
	for _, tc := range []struct {
		name   string
		busy   int
		freeAt time.Duration // from the start; 0: never full
		want   []time.Duration
	}{
		// arrivals 2, 3 and 4 (due at 40, 60, 80 ms) were not sent
		{"slots free: all the wait is the loop's", 1, 0, []time.Duration{60, 40, 20}},
		{"the cap freed at 70 ms: the loop's since then", 1, 70, []time.Duration{30, 30, 20}},
		{"at max_in_flight: the server's", 4, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []time.Duration
			l := &httpLoop{sent: 2, busy: tc.busy}
			if tc.freeAt > 0 {
				l.freeAt = start.Add(tc.freeAt * time.Millisecond)
			}
			l.job = &protocols.LoopJob{
				Start: start, Stop: stop, Slots: 4,
				Arrival: func(i int64) (time.Duration, bool) { return time.Duration(i) * 20 * time.Millisecond, i < 100 },
				Late:    func(d time.Duration) { got = append(got, d/time.Millisecond) },
			}
			l.stopSending(stop)
			if !l.stopped || len(got) != len(tc.want) {
				t.Fatalf("stopped %v, lateness %v ms, want %v", l.stopped, got, tc.want)
			}
			for k := range got {
				if got[k] != tc.want[k] {
					t.Errorf("lateness %v ms, want %v", got, tc.want)
					break
				}
			}
		})
	}
}

// TestLoopOutOfSockets: a machine out of file descriptors or ports fails
// the request that met the limit as the generator's (other), not the
// server's (connect), and the open model then opens no more connections
// than it has.
func TestLoopOutOfSockets(t *testing.T) {
	for _, tc := range []struct {
		err  unix.Errno
		out  bool
		kind protocols.ErrorKind
	}{
		{unix.EMFILE, true, protocols.KindOther},
		{unix.EADDRNOTAVAIL, true, protocols.KindOther},
		{unix.ECONNREFUSED, false, protocols.KindConnect},
	} {
		lp, why := NewLoop(http1Target("http://127.0.0.1:1/", func(h *scenarios.HTTPTarget) { h.Keepalive = false }))
		if lp == nil {
			t.Fatal(why)
		}
		l := lp.(*httpLoop)
		var lt loopTally
		l.job = lt.job(10, 10, time.Millisecond)
		l.conns = []loopConn{{fd: -1}}
		l.head, l.tail, l.sockets, l.busy = noSlot, noSlot, 5, 1
		l.link(0)
		l.connectFailed(0, "socket", tc.err)
		if l.canSend() == tc.out || lt.kinds[tc.kind] != 1 {
			t.Errorf("%v: can open another connection %v, kinds %v; want %v and one of kind %v",
				tc.err, l.canSend(), lt.kinds, !tc.out, tc.kind)
		}
	}
}
