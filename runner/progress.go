package runner

import "time"

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
	RPS       float64       // over the last second
	P99       time.Duration // over the phase so far
	InFlight  int64
}

// Observer watches a run: the console reporter implements it. Calls come
// from one goroutine per run, in order.
type Observer interface {
	PhaseStarted(s Snapshot)
	Progress(s Snapshot)
	PhaseDone(s Snapshot, r *PhaseResult)
}
