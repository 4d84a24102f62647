package runner

import (
	"context"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// worker runs closed-model worker w: a flow's user, or a requester.
func (pr *phaseRun) worker(ctx context.Context, w int, cl protocols.Client, sh *shard) {
	if pr.flow {
		pr.closedFlowWorker(ctx, w, cl.(protocols.Iterator), sh)
		return
	}
	pr.closedWorker(ctx, w, cl, sh)
}

// flowSink records the steps of one worker's iterations into its shard.
type flowSink struct {
	pr    *phaseRun
	sh    *shard
	timer Timer // for think times; made on first use
}

func (s *flowSink) Now() time.Time { return s.pr.clock.Now() }

func (s *flowSink) Sleep(ctx context.Context, d time.Duration) bool {
	if s.timer == nil {
		s.timer = s.pr.clock.NewTimer(d)
	} else {
		s.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		s.timer.Stop()
		return false
	case <-s.timer.C():
		return true
	}
}

// Step records a step; a step cut short by the end of the requests'
// context is unfinished, and its iteration ends there.
func (s *flowSink) Step(ctx context.Context, i int, name string, latency time.Duration, out *protocols.Outcome) bool {
	at := s.pr.clock.Since(s.pr.start)
	end := s.pr.settle(out, at)
	s.sh.recordStep(i, name, end, max(0, latency-(at-end)), out)
	return out.Kind != protocols.KindUnfinished
}

func (s *flowSink) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}

// closedFlowWorker is one closed-model virtual user of a flow: iterate,
// think, repeat, until the phase's deadline, its iteration limit (a
// phase's requests: counts iterations of a flow) or the end of its data.
func (pr *phaseRun) closedFlowWorker(ctx context.Context, w int, it protocols.Iterator, sh *shard) {
	ph := pr.phase
	if at := rampStart(ph, w); at > 0 && !sleepCtx(ctx, pr.clock, at) {
		return
	}
	sink := &flowSink{pr: pr, sh: sh}
	defer sink.stop()
	wait := pr.board.worker()
	for now := pr.clock.Now(); pr.sending(ctx, now); now = pr.clock.Now() {
		if ph.Requests > 0 && pr.claimed.Add(1) > ph.Requests {
			return
		}
		pr.inFlight.Add(1)
		waitingSince(wait, now.Sub(pr.start))
		// An iteration begun before the phase stopped sending runs on
		// through the graceful stop, as a k6 iteration does.
		r := it.Iterate(pr.reqCtx, now, sink)
		idle(wait)
		pr.inFlight.Add(-1)
		if !pr.endIteration(sh, r, 0) {
			return
		}
		if ph.ThinkTime > 0 && !sink.Sleep(ctx, ph.ThinkTime) {
			return
		}
	}
}

// openFlowWorker runs the iterations it takes from the schedule until the
// schedule ends: one arrival is one iteration, due at its scheduled time.
func (pr *phaseRun) openFlowWorker(ctx context.Context, r *relay, it protocols.Iterator, sh *shard, lead bool) {
	sink := &flowSink{pr: pr, sh: sh}
	defer sink.stop()
	wait := pr.board.worker()
	timer := pr.clock.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		due, ok := r.take(ctx, lead, timer)
		if !ok {
			return
		}
		lead = false
		pr.inFlight.Add(1)
		waitingSince(wait, due)
		lag := pr.clock.Since(pr.start) - due
		res := it.Iterate(pr.reqCtx, pr.start.Add(due), sink)
		idle(wait)
		pr.inFlight.Add(-1)
		if !pr.endIteration(sh, res, max(lag, 0)) {
			// Leave the rest of the arrivals to the other workers; the
			// schedule stops when the data ran out.
			return
		}
	}
}

// endIteration records iteration r; false when the worker must stop: its
// data ran out (which ends the phase cleanly, nothing counted) or the
// requests' context ended under it (its step was unfinished, and so is
// the iteration).
func (pr *phaseRun) endIteration(sh *shard, r protocols.IterOutcome, lag time.Duration) bool {
	switch {
	case r.Exhausted:
		pr.endOnce.Do(func() {
			pr.exhausted.Store(true)
			close(pr.dataEnd)
		})
		return false
	case r.Cut:
		sh.recordIteration(r.Latency, lag, protocols.KindUnfinished)
		return false
	}
	sh.recordIteration(r.Latency, lag, r.Kind)
	return true
}
