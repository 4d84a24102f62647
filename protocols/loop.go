package protocols

import (
	"context"
	"sync/atomic"
	"time"
)

// Loop is a client that drives a whole phase's connections from one
// goroutine on one system thread: it waits on all of them at once (epoll)
// and paces the open model itself, where the goroutine-per-worker clients
// pay a scheduler wake-up and a poller registration per request, and a
// timer's slack per arrival. A protocol offers one for the targets it can
// serve that way; the engine falls back to its workers for the others.
type Loop interface {
	// Run issues the job's requests until its schedule or its request
	// limit is exhausted, job.End passes or ctx is done, and returns with
	// every connection it opened closed. Requests still in flight when it
	// stops are abandoned: neither counted nor timed. An error means the
	// loop could not run at all (the system refused it an epoll set).
	Run(ctx context.Context, job *LoopJob) error
}

// LoopJob is what a Loop is asked to do in one phase. Every function is
// called on the loop's own goroutine, never concurrently.
type LoopJob struct {
	// Start is the phase's start, the origin of Arrival's offsets; End is
	// its hard deadline. Both are on Now's clock.
	Start, End time.Time
	// Slots is how many requests may be in flight at once, each on its
	// own connection: the closed model's workers, or the open model's
	// max_in_flight.
	Slots int
	// Arrival is the open model's schedule: when arrival i (0-based) is
	// due, as an offset from Start, or false when the phase has no arrival
	// i. nil means the closed model: each slot sends its next request as
	// soon as the previous one is done.
	Arrival func(i int64) (due time.Duration, ok bool)
	// Claim, in the closed model, asks leave to send one more request
	// (the phase's request limit); false retires the slot.
	Claim func() bool
	// StartAt, in the closed model, is when slot i (0-based) sends its
	// first request, as an offset from Start, non-decreasing in i (a
	// ramp); nil starts every slot at once. Think is how long a slot waits
	// after a response before its next request.
	StartAt func(i int) time.Duration
	Think   time.Duration
	// Pick chooses the next request of the target's mix.
	Pick func() int
	// Done records a completed request: its latency (from when it was
	// due in the open model, from when it was sent in the closed one) and,
	// in the open model, how late it left.
	Done func(req int, latency, lag time.Duration, out *Outcome)
	// Late records, in the open model, how late an arrival was sent when
	// a connection was free for it when it fell due: the generator's own
	// lateness, as opposed to a wait for max_in_flight.
	Late func(lateness time.Duration)
	// Sent counts the open model's arrivals handed to a connection;
	// IdleHandoff is called for each sent while another slot sat free too.
	Sent        *atomic.Int64
	IdleHandoff func()
	// InFlight is raised when a request is sent and lowered when it is
	// done or abandoned.
	InFlight *atomic.Int64
}
