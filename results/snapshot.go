package results

import "time"

// Snapshot is the state of a running phase, delivered about once a second
// to the engine's observer. It is never written to results.json: it is
// here so that the console can show a run without depending on the engine.
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
