package runner

import (
	"context"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
)

// The end of a phase: it stops sending, waits out its graceful stop and
// settles every request still in flight as unfinished, while its
// collector closes a second every tick, looks for stalls and checks the
// abort rules.

// await closes a second of the time series every tick and reports
// progress until the workers are done, also through the graceful stop;
// once the requests' context has ended, it gives the clients Config.Grace
// to return. It returns the number of seconds closed.
//
// Ticks are on the engine's clock: stalls and abort windows are
// measurements, decided the same on a busy machine as on an idle one.
func (pr *phaseRun) await(done <-chan struct{}, ticker Timer, cfg *Config, col *collector, res *results.PhaseResult, snap *results.Snapshot) int {
	var late <-chan time.Time
	reqsEnded := pr.reqCtx.Done()
	second := 0
	last := res.Start
	for {
		select {
		case <-done:
			return second
		case <-reqsEnded:
			late = time.After(cfg.Grace)
			reqsEnded = nil // the clients have seen it; now only wait for them
		case <-late:
			pr.abandonLate(cfg, col, snap)
			return second
		case now := <-ticker.C():
			// The tick's own time, not when this goroutine got to it: a
			// busy machine must not stretch what the tick saw.
			ticker.Reset(cfg.Tick - pr.clock.Since(res.Start)%cfg.Tick)
			pt := pr.tick(col, second, now.Sub(res.Start))
			second++
			if pr.watch != nil && res.Aborted == nil {
				if res.Aborted = pr.watch.check(res, now.Sub(res.Start), &pr.board); res.Aborted != nil {
					pr.abort(cfg, res.Aborted)
					ticker.Stop() // the phase is over: no more seconds to close
				}
			}
			if cfg.Observer != nil {
				updateSnapshot(snap, res, now.Sub(res.Start), pt.Completed-pt.Errors, now.Sub(last), pt.InFlight)
				snap.OldestWait, snap.Stopping = pt.OldestWait, !now.Before(pr.end)
				cfg.Observer.Progress(*snap)
			}
			last = now
		}
	}
}

// tick closes second at elapsed, with the requests still waiting, and
// looks for a stall.
func (pr *phaseRun) tick(col *collector, second int, elapsed time.Duration) results.Second {
	inFlight := pr.inFlight.Load()
	oldest, _ := pr.board.scan(elapsed, nil, 0)
	pt, answers := col.closeSecond(second, inFlight, oldest)
	waiting, since := inFlight, oldest
	if answers.gaveUp > inFlight {
		// Given up since the last tick: they waited since the last
		// answer at least.
		waiting, since = answers.gaveUp, elapsed
	}
	// Past the give-up time the requests in flight are being cut: no
	// stall lasts longer than that, however late the clients return.
	pr.stalls.observe(pr.gaveUpAt(elapsed), answers, waiting, since)
	return pt
}

// finish closes the phase's last second and its stalls, once its workers
// are done: the requests given up at the end are unfinished, and a
// stall that lasted to the end includes the graceful stop they waited.
func (pr *phaseRun) finish(col *collector, res *results.PhaseResult, second int) {
	col.drain()
	end := pr.gaveUpAt(pr.clock.Since(res.Start))
	// Every unfinished request was waiting until the end.
	pr.stalls.observe(end, col.answers, col.total.Errors.Unfinished, end)
	if col.pending.Requests > 0 {
		col.closeSecond(second, pr.inFlight.Load(), 0)
	}
	res.Stalls = pr.stalls.done()
}

// abandonLate counts the requests whose clients did not return Config.Grace
// after their context ended as unfinished, without a latency: a client
// that ignores its context must not make a request vanish.
func (pr *phaseRun) abandonLate(cfg *Config, col *collector, snap *results.Snapshot) {
	n := pr.inFlight.Load()
	cfg.Logger.Error().Str("case", snap.Case).Str("phase", snap.Phase).Int64("in_flight", n).
		Msg("clients did not return after their requests were cut; counting those requests unfinished")
	cut := results.Counters{Requests: n, Failed: n, Errors: results.ErrorCounts{Unfinished: n}}
	col.pending.Merge(cut)
	col.total.Merge(cut)
	noteError(col.total, protocols.KindUnfinished, protocols.ErrUnfinished.Error())
}

// sending reports whether a worker may start another request at now: the
// phase has not stopped sending.
func (pr *phaseRun) sending(ctx context.Context, now time.Time) bool {
	return ctx.Err() == nil && now.Before(pr.end)
}

// settle makes a request that failed because its context ended (the
// graceful stop ran out, an interrupt, an abort) what it is: unfinished,
// a failure of the server to answer in time, not of the kind the client
// saw when it was cut. It returns when the request ended, from the
// phase's start, given that its client returned at: an unfinished one
// ended when it was given up, however late its goroutine woke.
func (pr *phaseRun) settle(out *protocols.Outcome, at time.Duration) time.Duration {
	if out.Kind != protocols.KindNone && pr.reqCtx.Err() != nil {
		out.Kind, out.Err = protocols.KindUnfinished, protocols.ErrUnfinished
		return pr.gaveUpAt(at)
	}
	return at
}

// gaveUpAt is at, or when the phase gave its requests up if that was
// earlier.
func (pr *phaseRun) gaveUpAt(at time.Duration) time.Duration {
	return min(at, time.Duration(pr.giveUp.Load()))
}
