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
	// limit is exhausted, job.Stop passes or ctx is done; then waits for
	// the requests in flight until they are all answered, job.End passes
	// or ctx is done, and returns with every connection it opened closed.
	// Every request it sent ends in exactly one job.Done: one still
	// waiting when it gives up is a failure of KindUnfinished whose
	// latency is its age (from when it was due, as any other). An error
	// means the loop could not run at all (the system refused it an epoll
	// set).
	Run(ctx context.Context, job *LoopJob) error
}

// LoopJob is what a Loop is asked to do in one phase. Every function is
// called on the loop's own goroutine, never concurrently.
type LoopJob struct {
	// Start is the phase's start, the origin of Arrival's offsets. Stop
	// is when the phase stops sending (its duration); End is Stop plus the
	// phase's graceful stop, when the requests still in flight are given
	// up as KindUnfinished. All three are on Now's clock.
	Start, Stop, End time.Time
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
	// Done records a completed request: when it ended (an offset from
	// Start), its latency (from when it was due in the open model, from
	// when it was sent in the closed one) and, in the open model, how late
	// it left.
	Done func(req int, at, latency, lag time.Duration, out *Outcome)
	// Late records, in the open model, how late an arrival was sent when
	// a connection was free for it when it fell due: the generator's own
	// lateness, as opposed to a wait for max_in_flight.
	Late func(lateness time.Duration)
	// Sent counts the open model's arrivals handed to a connection;
	// IdleHandoff is called for each sent while another slot sat free too.
	Sent        *atomic.Int64
	IdleHandoff func()
	// InFlight is raised when a request is sent and lowered when it is
	// done (answered, failed or unfinished).
	InFlight *atomic.Int64
	// Oldest is the due time, as nanoseconds since Start, of this loop's
	// oldest request in flight, or NoneWaiting when it has none; the loop
	// refreshes it at least as often as it checks timeouts. The engine
	// reads it from another goroutine: a request still waiting is evidence
	// of its latency before it ends (a stall, a windowed rule).
	Oldest *atomic.Int64
	// Busy, when set, is told once, as Run returns, the CPU time the
	// loop's thread spent in it: a loop sends from one thread, which at
	// full use sets the pace, whatever the other cores do.
	Busy func(cpu time.Duration)
}

// NoneWaiting is LoopJob.Oldest's value when no request is in flight.
const NoneWaiting = int64(1<<63 - 1)
