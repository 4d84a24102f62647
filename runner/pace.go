package runner

import (
	"math"
	"time"

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

// spawnPatience is how long the next arrival may be overdue, with no
// worker free to send it, before another connection is opened for it.
// Opening one per momentary miss turns a rate step into a connection storm
// that costs the generator more than the wait; the wait itself is measured
// (latency runs from the schedule), so it is never hidden.
const spawnPatience = time.Millisecond

// waitForever is the patience when no worker may be added.
const waitForever = time.Duration(-1)

// vacancy is what to do while no worker holds the schedule and the next
// arrival is late by late (negative: not due yet), given how many workers
// exist and how many the phase may have (max_in_flight): spawn a worker for
// it now, or look again after wait (waitForever: none may be added; a busy
// worker takes the schedule back when it is done).
func vacancy(spawned, limit int, late time.Duration) (spawn bool, wait time.Duration) {
	switch {
	case spawned >= limit:
		return false, waitForever
	case late >= spawnPatience:
		return true, 0
	default:
		return false, spawnPatience - late
	}
}

// Waiting for an arrival. Go's timers wake late by up to a millisecond (the
// runtime polls with a millisecond timeout), so a timer alone sends most
// arrivals half a millisecond late. A precise wait is an alarm (a timerfd
// in the runtime's poller, which the kernel fires on time) until spinLead
// before the arrival, and a spin on the clock for the rest, which takes up
// the few microseconds the poller needs to run the woken goroutine. A spin
// costs CPU, so it is kept that short.
const spinLead = 10 * time.Microsecond

// waitKind is a stage of the wait for an arrival.
type waitKind int

const (
	waitDone  waitKind = iota // the arrival is due: send it
	waitTimer                 // park on a timer of the engine's clock
	waitAlarm                 // park on the precise alarm
	waitSpin                  // spin on the clock (after passing the schedule on)
)

// waitStep is the next stage of the wait for an arrival due in left, and
// how long it lasts. Without a precise alarm (a clock other than the wall
// clock, a system without timerfd) the whole wait is on a timer.
func waitStep(left time.Duration, precise bool) (waitKind, time.Duration) {
	switch {
	case left <= 0:
		return waitDone, 0
	case !precise:
		return waitTimer, left
	case left > spinLead:
		return waitAlarm, left - spinLead
	default:
		return waitSpin, left
	}
}
