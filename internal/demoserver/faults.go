package demoserver

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// faults decides, per request, how long to wait before answering, whether
// to answer with an injected error, whether the server is stalled and
// whether a connection has served its last request. It knows nothing about
// HTTP and is shared by every listener of one Server, so that a framed TCP
// listener can apply the same knobs later.
type faults struct {
	delay     time.Duration
	jitter    time.Duration
	dist      DelayDist
	errorRate float64

	// epoch is the instant stall windows are counted from. It carries a
	// monotonic reading, so a wall-clock step does not move the windows.
	epoch      time.Time
	stallEvery time.Duration
	stallFor   time.Duration

	closeAfter int64

	// rng is per server (never the global source) so that a fixed seed gives
	// a reproducible sequence and concurrent servers in one test binary do
	// not disturb each other. *rand.Rand is not safe for concurrent use,
	// hence the mutex; it is only taken when a draw is actually needed.
	mu  sync.Mutex
	rng *rand.Rand
}

// newFaults returns the fault injector for the knobs of a validated cfg,
// with stall windows counted from epoch. Seed 0 picks a random seed; the
// seed used is returned so it can be logged and a run replayed.
func newFaults(cfg Config, epoch time.Time) (*faults, uint64) {
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64() | 1 // never 0, so the logged seed replays this run
	}
	// The second PCG word only needs to differ from the first; a fixed odd
	// constant keeps the whole state derived from the one seed a user sees.
	return &faults{
		delay:      cfg.Delay,
		jitter:     cfg.Jitter,
		dist:       cfg.DelayDist,
		errorRate:  cfg.ErrorRate,
		epoch:      epoch,
		stallEvery: cfg.StallEvery,
		stallFor:   cfg.StallFor,
		closeAfter: int64(cfg.CloseAfter),
		rng:        rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}, seed
}

// next returns the wait before the response and whether it must be an
// injected error. The error draw comes before the delay draw so that the
// sequence of error decisions for a seed does not depend on the delay knobs.
func (f *faults) next() (wait time.Duration, fail bool) {
	wait = f.delay
	drawErr := f.errorRate > 0 && f.errorRate < 1
	if !drawErr && f.jitter <= 0 {
		return wait, f.errorRate >= 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if drawErr {
		fail = f.rng.Float64() < f.errorRate
	} else {
		fail = f.errorRate >= 1
	}
	if f.jitter > 0 {
		wait = sampleDelay(f.rng, f.dist, f.delay, f.jitter)
	}
	return wait, fail
}

// stalls reports whether stalls are configured, so the request path can
// skip reading the clock when they are not.
func (f *faults) stalls() bool { return f.stallEvery > 0 }

// stallWait returns how long a response that is ready at now must still be
// held because the server is stalled; 0 outside a stall. The clock is an
// argument so the window arithmetic can be tested without waiting.
func (f *faults) stallWait(now time.Time) time.Duration {
	return stallRemaining(now.Sub(f.epoch), f.stallEvery, f.stallFor)
}

// closesConn reports whether a connection that has now served served
// requests must be closed after the current response.
func (f *faults) closesConn(served int64) bool {
	return f.closeAfter > 0 && served >= f.closeAfter
}

// stallRemaining returns how much of a stall is left at sinceStart, where
// the server stalls for dur at the start of every every-long window: window
// k covers [k·every, k·every+dur). It returns 0 outside a stall, when stalls
// are off (every or dur not positive) and before the start, which only a
// clock read before the epoch was taken could produce.
func stallRemaining(sinceStart, every, dur time.Duration) time.Duration {
	if every <= 0 || dur <= 0 || sinceStart < 0 {
		return 0
	}
	if into := sinceStart % every; into < dur {
		return dur - into
	}
	return 0
}

// sampleDelay draws one delay for dist with base delay and spread jitter
// (see the DelayDist constants). It takes exactly one draw from rng, so
// that a seed's sequence of delays stays aligned with its sequence of error
// decisions, and it never returns a negative duration. DelayConstant and
// DelayUniform use the very draw earlier versions used for jitter, so old
// seeds replay.
func sampleDelay(rng *rand.Rand, dist DelayDist, delay, jitter time.Duration) time.Duration {
	if jitter <= 0 {
		return delay
	}
	switch dist {
	case DelayExponential:
		return clampDuration(float64(delay) + rng.ExpFloat64()*float64(jitter))
	case DelayNormal:
		// Clamping rather than redrawing keeps one draw per request; the
		// cost is a mean above delay when jitter is comparable to it.
		return clampDuration(float64(delay) + rng.NormFloat64()*float64(jitter))
	default:
		return delay + time.Duration(rng.Int64N(int64(jitter)))
	}
}

// clampDuration converts nanoseconds to a Duration in [0, MaxInt64]. The
// exponential and normal tails are unbounded, and converting an
// out-of-range float to an integer gives an arbitrary value in Go.
func clampDuration(ns float64) time.Duration {
	switch {
	case !(ns > 0): // NaN too
		return 0
	case ns >= math.MaxInt64: // the constant rounds up to 2⁶³, itself out of range
		return math.MaxInt64
	}
	return time.Duration(ns)
}
