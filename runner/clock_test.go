package runner

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock that moves only when the test advances it, so what
// the engine decides is the same on an idle and on a saturated machine.
type fakeClock struct {
	mu      sync.Mutex
	base    time.Time
	now     time.Duration // since base
	cpu     time.Duration
	armed   map[*fakeTimer]bool
	changed chan struct{} // receives a token when a timer is armed
}

func newFakeClock() *fakeClock {
	return &fakeClock{base: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		armed: map[*fakeTimer]bool{}, changed: make(chan struct{}, 1)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base.Add(c.now)
}

func (c *fakeClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *fakeClock) CPU() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cpu
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{c: c, ch: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

func (c *fakeClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	t := &fakeTimer{c: c, ch: make(chan time.Time, 1), f: cancel}
	t.Reset(d)
	return ctx, func() { t.Stop(); cancel() }
}

// next is the earliest armed timer due before horizon.
func (c *fakeClock) next(horizon time.Duration) (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	when, ok := time.Duration(0), false
	for t := range c.armed {
		if t.when < horizon && (!ok || t.when < when) {
			when, ok = t.when, true
		}
	}
	return when, ok
}

// advanceTo moves the clock to at (never back) and fires the timers due by then.
func (c *fakeClock) advanceTo(at time.Duration) {
	c.mu.Lock()
	c.now = max(c.now, at)
	var due []*fakeTimer
	for t := range c.armed {
		if t.when <= c.now {
			due = append(due, t)
		}
	}
	slices.SortFunc(due, func(a, b *fakeTimer) int { return int(a.when - b.when) })
	for _, t := range due {
		t.fireLocked()
	}
	c.mu.Unlock()
}

// drive runs the clock for an engine under test until done closes: each
// time a timer due before horizon is armed it jumps to that timer's time
// plus late (how late a busy machine would wake the sleeper) and fires it.
func (c *fakeClock) drive(t *testing.T, done <-chan struct{}, horizon, late time.Duration) {
	t.Helper()
	stuck := time.NewTimer(time.Minute) // a failure guard, never a pass condition
	defer stuck.Stop()
	for {
		if when, ok := c.next(horizon); ok {
			c.advanceTo(when + late)
			continue
		}
		select {
		case <-done:
			return
		case <-c.changed:
		case <-stuck.C:
			t.Fatal("the engine neither finished nor armed a timer")
		}
	}
}

type fakeTimer struct {
	c     *fakeClock
	ch    chan time.Time
	f     func() // set: runs in its own goroutine instead of sending on ch
	when  time.Duration
	armed bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	was := t.stopLocked()
	t.when = c.now + d
	if d > 0 && t.when < c.now { // overflow: never
		t.when = time.Duration(1<<63 - 1)
	}
	t.armed = true
	c.armed[t] = true
	if t.when <= c.now {
		t.fireLocked()
		return was
	}
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.stopLocked()
}

func (t *fakeTimer) stopLocked() bool {
	was := t.armed
	t.armed = false
	delete(t.c.armed, t)
	select { // Go 1.23 semantics: no stale tick after Stop or Reset
	case <-t.ch:
	default:
	}
	return was
}

func (t *fakeTimer) fireLocked() {
	t.armed = false
	delete(t.c.armed, t)
	if t.f != nil {
		go t.f()
		return
	}
	select {
	case t.ch <- t.c.base.Add(t.c.now):
	default:
	}
}

func TestFakeClockFiresTimersInOrder(t *testing.T) {
	c := newFakeClock()
	a, b := c.NewTimer(20*time.Millisecond), c.NewTimer(10*time.Millisecond)
	stopped := c.NewTimer(5 * time.Millisecond)
	stopped.Stop()
	if when, ok := c.next(time.Hour); !ok || when != 10*time.Millisecond {
		t.Fatalf("next = %v, %v; want 10ms", when, ok)
	}
	c.advanceTo(15 * time.Millisecond)
	select {
	case at := <-b.C():
		if got := at.Sub(c.base); got != 15*time.Millisecond {
			t.Errorf("b fired at %v, want 15ms", got)
		}
	default:
		t.Error("b did not fire at 15ms")
	}
	for name, tm := range map[string]Timer{"a (due at 20ms)": a, "stopped": stopped} {
		select {
		case <-tm.C():
			t.Errorf("%s fired at 15ms", name)
		default:
		}
	}
	if !a.Reset(time.Millisecond) {
		t.Error("Reset of an armed timer reports it was not armed")
	}
	c.advanceTo(16 * time.Millisecond)
	if _, ok := <-a.C(); !ok || c.Since(c.base) != 16*time.Millisecond {
		t.Error("a reset to 1ms did not fire at 16ms")
	}
	ctx, cancel := c.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.advanceTo(time.Second) // 16ms + 1s is not yet reached
	if ctx.Err() != nil {
		t.Error("the context ended before its deadline")
	}
	c.advanceTo(2 * time.Second)
	<-ctx.Done() // the test times out if the deadline never ran
}

func TestWallClockReadsCPU(t *testing.T) {
	var w WallClock
	for start := w.Now(); w.Since(start) < 5*time.Millisecond; { //nolint:revive // burn a little CPU on purpose
	}
	if w.CPU() <= 0 {
		t.Errorf("WallClock.CPU() = %v after spinning, want > 0", w.CPU())
	}
}
