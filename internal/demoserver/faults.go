package demoserver

import (
	"math/rand/v2"
	"sync"
	"time"
)

// faults decides, per request, how long to wait before answering and whether
// to answer with an injected error. It is shared by every listener of one
// Server so that a framed TCP listener can apply the same knobs later.
type faults struct {
	delay     time.Duration
	jitter    time.Duration
	errorRate float64

	// rng is per server (never the global source) so that a fixed seed gives
	// a reproducible sequence and concurrent servers in one test binary do
	// not disturb each other. *rand.Rand is not safe for concurrent use,
	// hence the mutex; it is only taken when a draw is actually needed.
	mu  sync.Mutex
	rng *rand.Rand
}

// newFaults returns the fault injector for the given knobs. seed 0 picks a
// random seed; the seed used is returned so it can be logged and a run
// replayed.
func newFaults(delay, jitter time.Duration, errorRate float64, seed uint64) (*faults, uint64) {
	if seed == 0 {
		seed = rand.Uint64() | 1 // never 0, so the logged seed replays this run
	}
	// The second PCG word only needs to differ from the first; a fixed odd
	// constant keeps the whole state derived from the one seed a user sees.
	return &faults{
		delay:     delay,
		jitter:    jitter,
		errorRate: errorRate,
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}, seed
}

// next returns the wait before the response and whether it must be an
// injected error. The error draw comes before the jitter draw so that the
// sequence of error decisions for a seed does not depend on Jitter.
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
		wait += time.Duration(f.rng.Int64N(int64(f.jitter)))
	}
	return wait, fail
}
