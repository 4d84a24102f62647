package protocols

import (
	"context"
	"time"
)

// Iterator is a client that runs whole iterations of a flow instead of
// single requests. The engine gives it the run's data feeds once, then
// calls Iterate for every iteration, and records what it reports.
type Iterator interface {
	Client
	// Bind gives the client the run's data feeds, before the first Iterate.
	Bind(f Feeds)
	// Iterate runs setup if the user needs it, then one iteration, due at
	// due. It reports every step to sink as the step ends.
	Iterate(ctx context.Context, due time.Time, sink StepSink) IterOutcome
}

// StepSink is the engine's side of an iteration: its clock, its pauses,
// and the recorder of steps.
type StepSink interface {
	// Now reads the engine's clock.
	Now() time.Time
	// Sleep pauses for d; false when ctx ended first.
	Sleep(ctx context.Context, d time.Duration) bool
	// Step records step i of Flow.Steps, which took latency and ended as
	// out says; i < 0 is a failed setup step, recorded without latency.
	// It returns false when the step was cut short by the phase's end, so
	// the iteration is abandoned, uncounted.
	Step(ctx context.Context, i int, name string, latency time.Duration, out *Outcome) bool
}

// IterOutcome is how an iteration ended.
type IterOutcome struct {
	Kind      ErrorKind     // KindNone: every step succeeded
	Latency   time.Duration // from due to the end of the last step, setup and think times excluded
	Exhausted bool          // a data source had no row left: the user stops
	Cut       bool          // cut short by the phase's end: not an iteration
}
