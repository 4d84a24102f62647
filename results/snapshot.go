package results

import "time"

// Snapshot is the state of a running phase, delivered about once a second
// to the engine's observer. It is never written to results.json: it is
// here so that the console can show a run without depending on the engine.
type Snapshot struct {
	Scenario string
	Case     string
	Phase    string // Name, and Label in parentheses when set: for display
	// Name is the phase's name in the scenario; Label tells this run of
	// it apart ("trial 2/5", "probe 1, step 400/s, warm-up"), "" for none.
	Name, Label string
	Warmup      bool
	Elapsed     time.Duration
	Planned     time.Duration // the phase's duration limit; 0 = none
	Completed   int64
	Target      int64 // the phase's request limit; 0 = none
	Failed      int64
	RPS         float64       // succeeded per second, over the last second
	P99         time.Duration // over the phase so far
	InFlight    int64
	// OldestWait is how long the oldest request in flight has waited: a
	// frozen server shows here long before any request completes.
	OldestWait time.Duration
	// Stopping is set once the phase has stopped sending and waits for
	// the requests in flight (its graceful stop).
	Stopping bool
	// Result is the phase so far, for observers that export its totals
	// and histograms. It belongs to the runner, whose goroutine makes the
	// observer's calls and updates it between them: read it only during
	// a call, and keep none of it.
	Result *PhaseResult
}
