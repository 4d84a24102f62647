package runner

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// closedWorker is one closed-model worker: request, wait for the response,
// think, repeat, until the phase stops sending or its request limit.
func (pr *phaseRun) closedWorker(ctx context.Context, w int, cl protocols.Client, sh *shard) {
	ph := pr.phase
	if at := rampStart(ph, w); at > 0 && !sleepCtx(ctx, pr.clock, at) {
		return
	}
	rng := rand.New(rand.NewPCG(uint64(w), 0x9e3779b97f4a7c15))
	var think Timer
	if ph.ThinkTime > 0 {
		think = pr.clock.NewTimer(time.Hour)
		think.Stop()
	}
	wait := pr.board.worker()
	var out protocols.Outcome
	for now := pr.clock.Now(); pr.sending(ctx, now); {
		if ph.Requests > 0 && pr.claimed.Add(1) > ph.Requests {
			return
		}
		req := pr.pick(rng)
		pr.inFlight.Add(1)
		// In the closed model a request is due when its worker is ready,
		// so latency runs from here, not from when the bytes left.
		start := now
		waitingSince(wait, start.Sub(pr.start))
		cl.Do(pr.reqCtx, req, &out)
		now = pr.clock.Now()
		at := pr.settle(&out, now.Sub(pr.start))
		sh.record(req, at, at-start.Sub(pr.start), 0, &out)
		idle(wait)
		pr.inFlight.Add(-1)
		if think != nil {
			think.Reset(ph.ThinkTime)
			select {
			case <-ctx.Done():
				think.Stop()
				return
			case <-think.C():
			}
			now = pr.clock.Now()
		}
	}
}
