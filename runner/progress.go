package runner

import (
	"time"

	"github.com/loadgate/loadgate/results"
)

// Snapshot is the state of a running phase, delivered about once a second.
type Snapshot struct {
	Scenario  string
	Case      string
	Phase     string
	Warmup    bool
	Elapsed   time.Duration
	Planned   time.Duration // the phase's duration limit; 0 = none
	Completed int64
	Target    int64 // the phase's request limit; 0 = none
	Failed    int64
	RPS       float64       // succeeded per second, over the last second
	P99       time.Duration // over the phase so far
	InFlight  int64
	// OldestWait is how long the oldest request in flight has waited: a
	// frozen server shows here long before any request completes.
	OldestWait time.Duration
	// Stopping is set once the phase has stopped sending and waits for
	// the requests in flight (its graceful stop).
	Stopping bool
}

// Observer watches a run: the console reporter implements it. Calls come
// from one goroutine per run, in order.
type Observer interface {
	PhaseStarted(s Snapshot)
	Progress(s Snapshot)
	PhaseDone(s Snapshot, r *results.PhaseResult)
}

// update refreshes s from the phase so far: the requests that succeeded
// over span give the rate (failures are not throughput), the phase's
// histogram of successes the p99.
func (s *Snapshot) update(r *results.PhaseResult, elapsed time.Duration, succeeded int64, span time.Duration, inFlight int64) {
	s.Elapsed = elapsed
	s.Completed, s.Failed = r.Requests, r.Failed
	s.RPS = 0
	if secs := span.Seconds(); secs > 0 {
		s.RPS = float64(succeeded) / secs
	}
	s.P99 = r.Latency.Quantile(99)
	s.InFlight = inFlight
}
