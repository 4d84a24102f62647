package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// Pacing of the open model. Arrivals follow a rate that is constant or ramps
// linearly from r.From to r.To over the phase's duration d, so the number of
// arrivals due by time t is
//
//	N(t) = From·t + (To−From)·t² / (2d)
//
// and arrival i (0-based) is due at the t where N(t) = i. Every due time is
// computed from i alone, never from the previous send, so a late scheduler
// catches up with a burst instead of drifting or silently skipping arrivals.

// arrivalOffset is when arrival i is due, counted from the phase start.
func arrivalOffset(r scenarios.Rate, d time.Duration, i int64) time.Duration {
	if i <= 0 {
		return 0
	}
	secs := d.Seconds()
	n := float64(i)
	var t float64
	if r.From == r.To || secs <= 0 {
		t = n / r.From
	} else {
		a := (r.To - r.From) / (2 * secs)
		b := r.From
		// The root of a·t² + b·t − n = 0 in the stable form, which also holds
		// when a < 0 (a falling ramp) and when b = 0 (a ramp from zero).
		t = 2 * n / (b + math.Sqrt(b*b+4*a*n))
	}
	if math.IsInf(t, 0) || math.IsNaN(t) || t > float64(math.MaxInt64)/1e9 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(t * 1e9)
}

// arrivalsDue is how many arrivals are due strictly before t: the count of
// i ≥ 0 with arrivalOffset(i) < t.
func arrivalsDue(r scenarios.Rate, d time.Duration, t time.Duration) int64 {
	if t <= 0 {
		return 0
	}
	secs := t.Seconds()
	var n float64
	if r.From == r.To || d <= 0 {
		n = r.From * secs
	} else {
		n = r.From*secs + (r.To-r.From)*secs*secs/(2*d.Seconds())
	}
	// Arrival 0 is due at 0, so any t > 0 has at least one; the epsilon keeps
	// float error at an exact arrival time from counting it early.
	return max(1, int64(math.Ceil(n-1e-9)))
}

// rampStart is when closed-model worker w of a phase starts. With ramp_up
// the workers start evenly over it; with a concurrency ramp {from, to},
// `from` workers start at once and the rest join evenly across the phase so
// that all `to` are running before it ends.
func rampStart(ph *scenarios.Phase, w int) time.Duration {
	switch {
	case ph.ConcurrencyFrom > 0 && ph.Concurrency > ph.ConcurrencyFrom && ph.Duration > 0:
		if w < ph.ConcurrencyFrom {
			return 0
		}
		steps := int64(ph.Concurrency - ph.ConcurrencyFrom + 1)
		return time.Duration(int64(ph.Duration) * int64(w+1-ph.ConcurrencyFrom) / steps)
	case ph.RampUp > 0:
		return time.Duration(int64(ph.RampUp) * int64(w) / int64(ph.Concurrency))
	default:
		return 0
	}
}

// pacer is the open model's schedule as a pure function, after vegeta's
// Pacer: the scheduler asks it, with nothing but counts and offsets, what
// to do next, so the decision is tested without a clock.
type pacer struct {
	rate     scenarios.Rate
	duration time.Duration // the phase's length; 0 = none
	requests int64         // the phase's request limit; 0 = none
}

func newPacer(ph *scenarios.Phase) pacer {
	return pacer{rate: ph.Rate, duration: ph.Duration, requests: ph.Requests}
}

// next is the decision for arrival number sent (0-based, the count handed
// out so far) at elapsed time since the phase started: when it is due, how
// long to wait for it (negative: it is already late by that much), or stop
// when the phase has no more arrivals.
func (p pacer) next(sent int64, elapsed time.Duration) (due, wait time.Duration, stop bool) {
	if p.requests > 0 && sent >= p.requests {
		return 0, 0, true
	}
	due = arrivalOffset(p.rate, p.duration, sent)
	if p.duration > 0 && due >= p.duration {
		return due, 0, true
	}
	return due, due - elapsed, false
}

// initialWorkers is how many workers an open-model phase starts with:
// enough for the peak rate at 1 ms per request, so that the first arrivals
// do not each wait out spawnPatience, within limit.
func initialWorkers(r scenarios.Rate, limit int) int {
	return min(limit, max(1, int(math.Ceil(max(r.From, r.To)/1000))))
}

// spawnPatience is how long an arrival waits for a busy worker to free up
// before the scheduler opens another connection for it. Opening one per
// momentary miss turns a rate step into a connection storm that costs the
// generator more than the wait; the wait itself is measured (latency runs
// from the schedule), so it is never hidden.
const spawnPatience = time.Millisecond

// waitForever is the patience when no worker may be added.
const waitForever = time.Duration(-1)

// placement is where a due arrival goes, given how many workers exist, how
// many the phase starts with and how many it may have (max_in_flight):
// spawn says start a new worker for it at once; otherwise it goes to an idle
// worker if there is one, and if not, waits up to patience for a busy one
// before a new worker is started (waitForever: no new worker may start).
func placement(spawned, initial, limit int) (spawn bool, patience time.Duration) {
	switch {
	case spawned < initial:
		return true, 0
	case spawned < limit:
		return false, spawnPatience
	default:
		return false, waitForever
	}
}

// schedule is the open model's clock. It hands each arrival's scheduled
// offset to an idle worker, starts a new worker when none frees up soon (up
// to limit), and otherwise waits for one: the arrivals that pile up meanwhile
// leave in a burst once a worker frees, each still timed from its schedule,
// which is what corrects coordinated omission. It returns how many arrivals
// it handed out. What to do is decided by pacer.next and placement; this
// loop only carries it out.
func (pr *phaseRun) schedule(ctx context.Context, limit int) int64 {
	work := make(chan time.Duration)
	defer close(work)
	spawn := func(due time.Duration) bool {
		cl, err := pr.addClient()
		if err != nil {
			return false
		}
		w := pr.spawned - 1
		pr.wg.Add(1)
		go func() {
			defer pr.wg.Done()
			if pr.flow {
				pr.openFlowWorker(ctx, w, cl.(protocols.Iterator), pr.shards[w%len(pr.shards)], due, work)
				return
			}
			pr.openWorker(ctx, w, cl, pr.shards[w%len(pr.shards)], due, work)
		}()
		return true
	}
	p := newPacer(pr.phase)
	initial := initialWorkers(pr.phase.Rate, limit)
	timer := pr.clock.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var sent int64
	// backlog is set while the scheduler works off arrivals that waited for a
	// busy worker (max_in_flight back-pressure, the server's doing), so that
	// their lateness is not blamed on the generator.
	backlog := false
	for {
		due, wait, stop := p.next(sent, pr.clock.Since(pr.start))
		if stop || pr.exhausted.Load() {
			// A flow's data ran out: the phase has nothing more to send.
			return sent
		}
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return sent
			case <-timer.C():
			}
			pr.schedLag.Record(pr.clock.Since(pr.start) - due)
			backlog = false // caught up with the schedule
		} else if !backlog {
			// Not held back by busy workers, yet already late: the
			// generator itself fell behind.
			pr.schedLag.Record(-wait)
		}
		spawnNow, patience := placement(pr.spawned, initial, limit)
		if spawnNow {
			if !spawn(due) {
				return sent
			}
			sent++
			continue
		}
		select {
		case work <- due:
			pr.idleHandoffs++
		default:
			backlog = true
			var gaveUp <-chan time.Time // nil: wait for a worker however long
			if patience != waitForever {
				timer.Reset(patience)
				gaveUp = timer.C()
			}
			select {
			case work <- due:
				timer.Stop()
			case <-gaveUp:
				if !spawn(due) {
					return sent
				}
			case <-ctx.Done():
				return sent
			case <-pr.dataEnd:
				return sent
			}
		}
		sent++
	}
}

// openWorker sends the arrivals it is handed, first, then whatever the
// scheduler passes on the work channel, until the channel closes.
func (pr *phaseRun) openWorker(ctx context.Context, w int, cl protocols.Client, sh *shard, first time.Duration, work <-chan time.Duration) {
	rng := rand.New(rand.NewPCG(uint64(w), 0x9e3779b97f4a7c15))
	var out protocols.Outcome
	due, ok := first, true
	for ok {
		req := pr.pick(rng)
		pr.inFlight.Add(1)
		lag := pr.clock.Since(pr.start) - due
		cl.Do(ctx, req, &out)
		// Latency runs from the scheduled time, not from when the request
		// finally left: a request that waited behind a stall was slow for
		// the user who sent it, even if the server answered it quickly.
		done := pr.clock.Now()
		latency := done.Sub(pr.start) - due
		pr.inFlight.Add(-1)
		if out.Kind != protocols.KindNone && pr.cutShort(ctx, done) {
			return
		}
		sh.record(req, latency, max(lag, 0), &out)
		due, ok = <-work
	}
}
