package runner

import (
	"errors"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// maxAbortWindow bounds the window an abort rule may look back over: the
// runner keeps one histogram per second of it.
const maxAbortWindow = 5 * time.Minute

// errAborted is the run's cancellation cause when an abort rule failed.
var errAborted = errors.New("an abort: true threshold failed")

// secondRing keeps the figures of the last seconds of a phase, so that an
// abort rule with a window sees only those. It starts with room for one
// second and grows, once, to the widest window asked for: abort rules ask
// on every tick from the first, so no second they need is lost, and a
// phase whose rules look at the whole phase keeps next to nothing.
type secondRing struct {
	slots []secondSlot
	next  int // where the next second goes
	n     int // seconds held
}

type secondSlot struct {
	counters results.Counters
	latency  *results.Histogram // succeeded requests, as the phase's Latency
}

func newSecondRing() *secondRing {
	return &secondRing{slots: []secondSlot{{latency: results.NewHistogram()}}}
}

// push keeps one closed second, dropping the oldest when full.
func (r *secondRing) push(c results.Counters, latency *results.Histogram) {
	s := &r.slots[r.next]
	s.counters = c
	s.latency.Reset()
	s.latency.Merge(latency)
	r.next = (r.next + 1) % len(r.slots)
	r.n = min(r.n+1, len(r.slots))
}

// grow makes room for the last k seconds, keeping those held in order.
func (r *secondRing) grow(k int) {
	if k <= len(r.slots) {
		return
	}
	slots := make([]secondSlot, k)
	for i := 0; i < r.n; i++ {
		slots[i] = r.slots[(r.next-r.n+i+len(r.slots))%len(r.slots)]
	}
	for i := r.n; i < k; i++ {
		slots[i].latency = results.NewHistogram()
	}
	r.slots, r.next = slots, r.n%k
}

// last merges the latest k seconds held (fewer when the phase is younger)
// into a result; it reports how many seconds that was.
func (r *secondRing) last(k int) (results.Counters, *results.Histogram, int) {
	k = min(k, r.n)
	var c results.Counters
	h := results.NewHistogram()
	for i := 1; i <= k; i++ {
		s := &r.slots[(r.next-i+len(r.slots))%len(r.slots)]
		c.Merge(s.counters)
		h.Merge(s.latency)
	}
	return c, h, k
}

// abortWatch evaluates a case's abort rules on a running phase, once per
// tick, from the collector's goroutine (which owns res and the ring).
type abortWatch struct {
	judge func(c *scenarios.Case, ph *scenarios.Phase, elapsed time.Duration, stats func(window time.Duration) results.Stats) *results.Aborted
	c     *scenarios.Case
	ph    *scenarios.Phase
	tick  time.Duration
	ring  *secondRing
}

// newAbortWatch is nil when the run has no abort judge.
func newAbortWatch(cfg *Config, c *scenarios.Case, ph *scenarios.Phase) *abortWatch {
	if cfg.Judge.Abort == nil || c == nil {
		return nil
	}
	return &abortWatch{judge: cfg.Judge.Abort, c: c, ph: ph, tick: cfg.Tick, ring: newSecondRing()}
}

// check asks the judge about the phase so far (elapsed since it started);
// a failing rule comes back with its case, phase and time filled in. The
// requests still waiting on board that have waited a tick or more count
// in the latency the rules see, as the lower bounds they are: a window in
// which nothing was answered is evidence, not "no data".
func (w *abortWatch) check(res *results.PhaseResult, elapsed time.Duration, board *waitBoard) *results.Aborted {
	a := w.judge(w.c, w.ph, elapsed, func(window time.Duration) results.Stats {
		var st results.Stats
		if window <= 0 {
			lat := results.NewHistogram()
			lat.Merge(res.Latency)
			_, waiting := board.scan(elapsed, lat, w.tick)
			st = results.Summarize([]*results.PhaseResult{{Counters: res.Counters, Elapsed: elapsed, Latency: lat,
				FailedLatency: res.FailedLatency, Connect: res.Connect, Dropped: res.Dropped, Generator: res.Generator}})
			st.Waiting = waiting
			return st
		}
		return w.window(window, elapsed, board)
	})
	if a == nil {
		return nil
	}
	out := *a
	if out.Case == "" {
		out.Case = w.c.ID
	}
	if out.Phase == "" {
		out.Phase = w.ph.Name
	}
	if out.At == 0 {
		out.At = elapsed
	}
	return &out
}

// window is the Stats of the last window of the phase, in whole ticks,
// with the requests waiting on board at elapsed.
func (w *abortWatch) window(window, elapsed time.Duration, board *waitBoard) results.Stats {
	window = min(window, maxAbortWindow)
	k := max(1, int((window+w.tick-1)/w.tick))
	w.ring.grow(k)
	c, lat, n := w.ring.last(k)
	_, waiting := board.scan(elapsed, lat, w.tick)
	st := results.Summarize([]*results.PhaseResult{{Counters: c, Elapsed: time.Duration(n) * w.tick, Latency: lat}})
	st.Waiting = waiting
	return st
}

// phaseAbort is the abort recorded on a phase of cases, the one reports
// quote: its time counts from the phase's start even in a search, whose
// probes are loads of their own.
func phaseAbort(cases []*results.CaseResult) *results.Aborted {
	for _, c := range cases {
		for _, p := range c.Phases {
			if p.Aborted != nil {
				return p.Aborted
			}
		}
	}
	return nil
}
