package runner

import (
	"context"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// Clock is the engine's source of time: when arrivals are due, how long a
// request took, when a phase ends and how much CPU the generator used. The
// wall clock is the default; tests substitute a clock they advance by hand,
// so that what the scheduler decides does not depend on how busy the
// machine is.
type Clock interface {
	Now() time.Time
	Since(t time.Time) time.Duration
	NewTimer(d time.Duration) Timer
	// WithTimeout is context.WithTimeout on this clock.
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
	// CPU is the process's user + system CPU time so far.
	CPU() time.Duration
}

// Timer is the part of *time.Timer the engine uses, with Go 1.23 semantics:
// after Reset or Stop no stale tick is received.
type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration) bool
	Stop() bool
}

// WallClock is the real clock, used when Config.Clock is nil.
type WallClock struct{}

// Now is protocols.Now: time.Now from one clock read instead of two, for
// the two readings that time every request.
func (WallClock) Now() time.Time { return protocols.Now() }

// Since is time.Since.
func (WallClock) Since(t time.Time) time.Duration { return time.Since(t) }

// NewTimer is time.NewTimer.
func (WallClock) NewTimer(d time.Duration) Timer { return wallTimer{time.NewTimer(d)} }

// WithTimeout is context.WithTimeout: the context carries its deadline, which
// the clients use as an I/O deadline.
func (WallClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// CPU reads getrusage(RUSAGE_SELF) (GetProcessTimes on Windows).
func (WallClock) CPU() time.Duration { return cpuTime() }

type wallTimer struct{ t *time.Timer }

func (w wallTimer) C() <-chan time.Time        { return w.t.C }
func (w wallTimer) Reset(d time.Duration) bool { return w.t.Reset(d) }
func (w wallTimer) Stop() bool                 { return w.t.Stop() }

// preciseClock is a clock that can wake a goroutine with microsecond
// precision, which Go's timers cannot. The open model's pacing uses it
// for every wait; a clock without it (a test's) is waited on with its
// timers alone.
type preciseClock interface{ newAlarm() (*alarm, error) }

// newAlarm makes a precise alarm on the wall clock.
func (WallClock) newAlarm() (*alarm, error) { return newAlarm() }
