package runner

import (
	"time"

	"github.com/loadgate/loadgate/results"
)

// Observer watches a run: the console reporter implements it. Calls come
// from one goroutine per run, in order.
type Observer interface {
	PhaseStarted(s results.Snapshot)
	Progress(s results.Snapshot)
	PhaseDone(s results.Snapshot, r *results.PhaseResult)
}

// updateSnapshot refreshes s from the phase so far: the requests that succeeded
// over span give the rate (failures are not throughput), the phase's
// histogram of successes the p99.
func updateSnapshot(s *results.Snapshot, r *results.PhaseResult, elapsed time.Duration, succeeded int64, span time.Duration, inFlight int64) {
	s.Elapsed = elapsed
	s.Completed, s.Failed = r.Requests, r.Failed
	s.RPS = 0
	if secs := span.Seconds(); secs > 0 {
		s.RPS = float64(succeeded) / secs
	}
	s.P99 = r.Latency.Quantile(99)
	s.InFlight = inFlight
}
