package runner

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// Phases run on an event loop when the target's protocol has one for it
// and the engine's own clients would run on the wall clock: the loop sends and
// answers every request of its connections from one thread, where workers
// pay a goroutine switch and a poller registration per request, and it
// paces the open model itself, to the microsecond.

// loopUnfit says why a phase runs on workers rather than event loops, or
// "" when loops can run it: the engine's own clients (not the run's), on
// the wall clock.
func loopUnfit(cr *caseRun, flow bool) string {
	_, wall := cr.Clock.(WallClock)
	switch {
	case cr.Workers:
		return "workers were asked for"
	case cr.clients != nil:
		return "the clients are the caller's"
	case !wall:
		return "the clock is not the wall clock"
	case flow:
		return "a flow runs on workers"
	}
	return ""
}

// loopsFor makes the event loops of phase ph: one for the open model,
// whose schedule one thread keeps, and for the closed model one per two
// usable cores (see loopCores; at most one per worker, and for HTTP/2 per
// connection). nil means workers run the phase, for the reason logged.
func (pr *phaseRun) loopsFor(cr *caseRun, caseID string) []protocols.Loop {
	ph := pr.phase
	why := loopUnfit(cr, pr.flow)
	n := 1
	if !ph.Rate.Open() {
		n = max(1, min(loopCores(runtime.GOMAXPROCS(0)), ph.Concurrency, sharedConns(pr.target)))
	}
	var loops []protocols.Loop
	for len(loops) < n && why == "" {
		var lp protocols.Loop
		if lp, why = newLoop(pr.target, len(loops), n); lp != nil {
			loops = append(loops, lp)
		}
	}
	if why != "" {
		cr.Logger.Debug().Str("case", caseID).Str("phase", ph.Name).Str("why", why).Msg("phase runs on workers")
		return nil
	}
	cr.Logger.Debug().Str("case", caseID).Str("phase", ph.Name).Int("loops", n).Msg("phase runs on event loops")
	return loops
}

// loopCores is how many event loops a closed-model phase may run with
// procs usable cores: half of them, and at least one. A loop's target is
// always on this machine (the loops connect only to its own addresses),
// so the server needs cores too, and a loop that shares one with it takes
// turns with it at every answer. On 2 cores shared with nginx (1 worker,
// 50 kept-alive connections), one loop had nginx answer 126–141k requests
// a second at 7.0–7.8 µs of loadgate's CPU each, and two loops 74–90k at
// 11–12.5 µs, less than the workers' 103–123k.
func loopCores(procs int) int { return max(1, procs/2) }

// startLoops runs the phase's load on loops, dealing the closed model's
// workers among them as cards: loop k of n has workers k, k+n, k+2n...,
// so that a ramp starts them on every loop alike. The channel closes when
// all are done.
// A loop stops sending at the job's Stop by itself and is run with the
// requests' context, so that it waits out the graceful stop.
func (pr *phaseRun) startLoops(loops []protocols.Loop, parallel int, sent *atomic.Int64) <-chan struct{} {
	ctx := pr.reqCtx
	for k, lp := range loops {
		slots := parallel / len(loops)
		if k < parallel%len(loops) {
			slots++
		}
		job := pr.loopJob(k, len(loops), slots, pr.shards[k%len(pr.shards)], sent)
		pr.wg.Add(1)
		go func() {
			defer pr.wg.Done()
			if err := lp.Run(ctx, job); err != nil {
				pr.setErr(fmt.Errorf("target %q: %w", pr.target.Name, err))
			}
		}()
	}
	done := make(chan struct{})
	go func() { pr.wg.Wait(); close(done) }()
	return done
}

// loopJob is loop k's (of n) share of the phase: slots connections,
// recorded in shard sh.
func (pr *phaseRun) loopJob(k, n, slots int, sh *shard, sent *atomic.Int64) *protocols.LoopJob {
	ph := pr.phase
	rng := rand.New(rand.NewPCG(uint64(k), 0x9e3779b97f4a7c15))
	job := &protocols.LoopJob{
		Start: pr.start, Stop: pr.end, End: pr.end.Add(pr.grace), Slots: slots,
		Claim: func() bool { return ph.Requests <= 0 || pr.claimed.Add(1) <= ph.Requests },
		Pick:  func() int { return pr.pick(rng) },
		Done: func(req int, at, latency, lag time.Duration, out *protocols.Outcome) {
			sh.record(req, at, latency, lag, out)
		},
		InFlight: &pr.inFlight,
		Oldest:   pr.board.loop(),
		Busy:     func(cpu time.Duration) { raiseTo(&pr.loopCPU, int64(cpu)) },
	}
	if !ph.Rate.Open() {
		job.Think = ph.ThinkTime
		if rampStart(ph, ph.Concurrency-1) > 0 {
			job.StartAt = func(i int) time.Duration { return rampStart(ph, k+i*n) }
		}
	} else {
		p := newPacer(ph)
		job.Arrival = func(i int64) (time.Duration, bool) {
			due, _, stop := p.next(i, 0)
			return due, !stop
		}
		job.Late = func(d time.Duration) { pr.schedLag.Record(d) }
		job.Sent = sent
		job.IdleHandoff = func() { pr.idleHandoffs++ }
	}
	return job
}
