package runner

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// behindRelay is a schedule an hour behind at a rate no one can send:
// every take finds its arrival due, so it measures the pacing's own
// bookkeeping, with no wait.
func behindRelay() (*relay, Timer) {
	pr := &phaseRun{phase: &scenarios.Phase{Rate: scenarios.Rate{From: 1e9, To: 1e9}}, clock: WallClock{},
		schedLag: results.NewHistogram(), dataEnd: make(chan struct{}), start: time.Now().Add(-time.Hour)}
	var sent atomic.Int64
	r := newRelay(pr, 1, &sent)
	timer := pr.clock.NewTimer(time.Hour)
	timer.Stop()
	return r, timer
}

// BenchmarkTake is the open model's hot path before a send: take an
// arrival and pass the schedule on. It must not allocate.
func BenchmarkTake(b *testing.B) {
	r, timer := behindRelay()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := r.take(ctx, true, timer); !ok {
			b.Fatal("the schedule ended")
		}
	}
}

func TestTakeDoesNotAllocate(t *testing.T) {
	r, timer := behindRelay()
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, ok := r.take(ctx, true, timer); !ok {
			t.Fatal("the schedule ended")
		}
	})
	if allocs != 0 {
		t.Errorf("take allocates %v times per arrival", allocs)
	}
	if r.sent.Load() != 1001 {
		t.Errorf("took %d arrivals, want 1001", r.sent.Load())
	}
}

func TestAlarmWaitDoesNotAllocate(t *testing.T) {
	a, err := newAlarm()
	if err != nil {
		t.Skip(err)
	}
	defer a.close()
	allocs := testing.AllocsPerRun(100, func() {
		if err := a.wait(time.Microsecond); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("an alarm allocates %v times per wait", allocs)
	}
}

// TestClosedAlarmWakesTheWaiter: closing the alarm is how a phase that
// ends early wakes the worker waiting for the next arrival.
func TestClosedAlarmWakesTheWaiter(t *testing.T) {
	a, err := newAlarm()
	if err != nil {
		t.Skip(err)
	}
	woke := make(chan error)
	go func() { woke <- a.wait(time.Hour) }()
	a.close()
	if err := <-woke; err == nil {
		t.Error("wait on a closed alarm returned no error")
	}
}
