//go:build linux

package http1

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
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
	// A loop that reads nothing while behind opens a connection for every
	// arrival. How many fewer it needs depends on how soon the server's
	// answers come, which a busy machine delays: a tenth of the arrivals
	// under load, half of them once under the whole suite with -race.
	if n := srv.accepts.Load(); n >= arrivals*9/10 {
		t.Errorf("%d connections for %d arrivals: the loop opened one for nearly every arrival", n, arrivals)
	}
}
