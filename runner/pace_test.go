package runner

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestArrivalOffset(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate scenarios.Rate
		d    time.Duration
		i    int64
		want time.Duration
	}{
		{"first arrival is due at once", scenarios.Rate{From: 100, To: 100}, 10 * time.Second, 0, 0},
		{"constant 100/s: arrival 1 after 10ms", scenarios.Rate{From: 100, To: 100}, 10 * time.Second, 1, 10 * time.Millisecond},
		{"constant 2000/s: arrival 9999 at 4.9995s, no drift", scenarios.Rate{From: 2000, To: 2000}, 5 * time.Second, 9999, 4999500 * time.Microsecond},
		{"requests-only phase (no duration) paces at From", scenarios.Rate{From: 4, To: 4}, 0, 2, 500 * time.Millisecond},
		// Ramp 0→100 over 10s: N(t) = 5t², so arrival 500 (the last) is due at 10s.
		{"ramp from zero: N(t)=5t², i=500 at 10s", scenarios.Rate{From: 0, To: 100}, 10 * time.Second, 500, 10 * time.Second},
		{"ramp from zero: i=5 at 1s", scenarios.Rate{From: 0, To: 100}, 10 * time.Second, 5, time.Second},
		// Ramp 100→300 over 2s: N(t) = 100t + 50t², N(1) = 150.
		{"rising ramp: N(1s)=150", scenarios.Rate{From: 100, To: 300}, 2 * time.Second, 150, time.Second},
		// Falling ramp 300→100 over 2s: N(t) = 300t − 50t², N(1) = 250, N(2) = 400.
		{"falling ramp: N(1s)=250", scenarios.Rate{From: 300, To: 100}, 2 * time.Second, 250, time.Second},
		{"falling ramp: N(2s)=400", scenarios.Rate{From: 300, To: 100}, 2 * time.Second, 400, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := arrivalOffset(tc.rate, tc.d, tc.i)
			if diff := got - tc.want; diff < -time.Microsecond || diff > time.Microsecond {
				t.Errorf("arrivalOffset(%v, %v, %d) = %v, want %v", tc.rate, tc.d, tc.i, got, tc.want)
			}
		})
	}
}

func TestArrivalsDueInvertsArrivalOffset(t *testing.T) {
	for _, r := range []scenarios.Rate{{From: 2000, To: 2000}, {From: 0, To: 100}, {From: 100, To: 300}, {From: 300, To: 100}, {From: 0.5, To: 0.5}} {
		d := 4 * time.Second
		for i := int64(0); i < 50; i++ {
			at := arrivalOffset(r, d, i)
			if at > d {
				break
			}
			// Arrival i is due before any instant just after it, and not before its own time.
			if got := arrivalsDue(r, d, at+time.Microsecond); got != i+1 {
				t.Errorf("%v: arrivalsDue(just after arrival %d at %v) = %d, want %d", r, i, at, got, i+1)
			}
			if got := arrivalsDue(r, d, at); got != i && at > 0 {
				t.Errorf("%v: arrivalsDue(exactly arrival %d at %v) = %d, want %d", r, i, at, got, i)
			}
		}
	}
}

func TestRampStart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase scenarios.Phase
		w     int
		want  time.Duration
	}{
		{"no ramp: everyone at once", scenarios.Phase{Concurrency: 8}, 7, 0},
		{"ramp_up: worker 0 at once", scenarios.Phase{Concurrency: 4, RampUp: 400 * time.Millisecond}, 0, 0},
		{"ramp_up: worker 3 of 4 at 3/4", scenarios.Phase{Concurrency: 4, RampUp: 400 * time.Millisecond}, 3, 300 * time.Millisecond},
		{"concurrency ramp: the from workers start at once", scenarios.Phase{ConcurrencyFrom: 2, Concurrency: 5, Duration: 4 * time.Second}, 1, 0},
		{"concurrency ramp 2→5 over 4s: worker 2 joins at 1s", scenarios.Phase{ConcurrencyFrom: 2, Concurrency: 5, Duration: 4 * time.Second}, 2, time.Second},
		{"concurrency ramp 2→5 over 4s: the last joins at 3s, before the end", scenarios.Phase{ConcurrencyFrom: 2, Concurrency: 5, Duration: 4 * time.Second}, 4, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rampStart(&tc.phase, tc.w); got != tc.want {
				t.Errorf("rampStart = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPacerNext(t *testing.T) {
	const ms = time.Millisecond
	at100 := pacer{rate: scenarios.Rate{From: 100, To: 100}, duration: time.Second}
	for _, tc := range []struct {
		name     string
		p        pacer
		sent     int64
		elapsed  time.Duration
		due      time.Duration
		wait     time.Duration
		wantStop bool
	}{
		{"first arrival is due at once", at100, 0, 0, 0, 0, false},
		{"early: wait for the next arrival", at100, 5, 42 * ms, 50 * ms, 8 * ms, false},
		{"late: negative wait is the lateness", at100, 5, 73 * ms, 50 * ms, -23 * ms, false},
		{"behind by several arrivals: each is still due at its own time", at100, 3, 90 * ms, 30 * ms, -60 * ms, false},
		{"last arrival of the phase", at100, 99, 985 * ms, 990 * ms, 5 * ms, false},
		{"duration reached: stop", at100, 100, 990 * ms, time.Second, 0, true},
		{"request limit reached: stop", pacer{rate: scenarios.Rate{From: 100, To: 100}, requests: 3}, 3, 0, 0, 0, true},
		{"request limit not reached, no duration", pacer{rate: scenarios.Rate{From: 100, To: 100}, requests: 3}, 2, 0, 20 * ms, 20 * ms, false},
		{"ramp 0→100 over 10s: arrival 5 at 1s", pacer{rate: scenarios.Rate{From: 0, To: 100}, duration: 10 * time.Second}, 5, 400 * ms, time.Second, 600 * ms, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			due, wait, stop := tc.p.next(tc.sent, tc.elapsed)
			if stop != tc.wantStop {
				t.Fatalf("stop = %v, want %v", stop, tc.wantStop)
			}
			if stop {
				return
			}
			near := func(a, b time.Duration) bool { return a-b < time.Microsecond && b-a < time.Microsecond }
			if !near(due, tc.due) || !near(wait, tc.wait) {
				t.Errorf("next(%d, %v) = due %v, wait %v; want %v, %v", tc.sent, tc.elapsed, due, wait, tc.due, tc.wait)
			}
		})
	}
}

func TestVacancy(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name           string
		spawned, limit int
		late           time.Duration
		spawn          bool
		wait           time.Duration
	}{
		{"next arrival not due yet: look again when patience would run out", 2, 10, -3 * ms, false, 4 * ms},
		{"just due: wait out the patience for a busy worker", 2, 10, 0, false, spawnPatience},
		{"overdue, patience left: wait the rest", 2, 10, 300 * time.Microsecond, false, 700 * time.Microsecond},
		{"overdue by the patience: open a connection", 2, 10, spawnPatience, true, 0},
		{"far behind: open a connection at once", 2, 10, 50 * ms, true, 0},
		{"at max_in_flight: wait for a busy worker however long", 10, 10, 50 * ms, false, waitForever},
		{"max_in_flight 1, already running", 1, 1, 0, false, waitForever},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spawn, wait := vacancy(tc.spawned, tc.limit, tc.late)
			if spawn != tc.spawn || wait != tc.wait {
				t.Errorf("vacancy(%d, %d, %v) = %v, %v; want %v, %v",
					tc.spawned, tc.limit, tc.late, spawn, wait, tc.spawn, tc.wait)
			}
		})
	}
}

func TestWaitStep(t *testing.T) {
	const us = time.Microsecond
	for _, tc := range []struct {
		name    string
		left    time.Duration
		precise bool
		kind    waitKind
		d       time.Duration
	}{
		{"due: send", 0, true, waitDone, 0},
		{"late: send at once", -5 * us, true, waitDone, 0},
		{"far off: the alarm, to spinLead before it", 50 * time.Millisecond, true, waitAlarm, 50*time.Millisecond - spinLead},
		{"near: the alarm, to spinLead before it", 500 * us, true, waitAlarm, 500*us - spinLead},
		{"just over spinLead: a short alarm", spinLead + us, true, waitAlarm, us},
		{"within spinLead: spin", spinLead, true, waitSpin, spinLead},
		{"a microsecond off: spin", us, true, waitSpin, us},
		{"no alarm: a timer for all of it", 500 * us, false, waitTimer, 500 * us},
		{"no alarm, far off: a timer for all of it", time.Second, false, waitTimer, time.Second},
		{"no alarm, due: send", 0, false, waitDone, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, d := waitStep(tc.left, tc.precise)
			if kind != tc.kind || d != tc.d {
				t.Errorf("waitStep(%v, %v) = %v, %v; want %v, %v", tc.left, tc.precise, kind, d, tc.kind, tc.d)
			}
		})
	}
}

func TestInitialWorkers(t *testing.T) {
	for _, tc := range []struct {
		rate  scenarios.Rate
		limit int
		want  int
	}{
		{scenarios.Rate{From: 50, To: 50}, 100, 1},
		{scenarios.Rate{From: 2500, To: 2500}, 100, 3},
		{scenarios.Rate{From: 0, To: 4000}, 100, 4}, // a ramp is provisioned for its peak
		{scenarios.Rate{From: 1e6, To: 1e6}, 64, 64},
	} {
		if got := initialWorkers(tc.rate, tc.limit); got != tc.want {
			t.Errorf("initialWorkers(%v, %d) = %d, want %d", tc.rate, tc.limit, got, tc.want)
		}
	}
}

// instantClient answers at once and counts its requests; with the fake
// clock, no virtual time passes while it works.
type instantClient struct{ calls *atomic.Int64 }

func (c instantClient) Do(_ context.Context, _ int, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	c.calls.Add(1)
}
func (instantClient) Close() error { return nil }

// TestSchedulerOnFakeClock runs the open model on a clock the test moves:
// the scheduler wakes exactly when it asked to, or `late` after, as on a
// busy machine. Its lateness must be measured exactly and judged: within
// bounds the generator is healthy, beyond them saturated. Nothing here
// depends on how busy the machine running the test is.
func TestSchedulerOnFakeClock(t *testing.T) {
	for _, tc := range []struct {
		name      string
		late      time.Duration
		saturated bool
	}{
		{"kept up: no lag, healthy", 0, false},
		{"woken 4ms late: measured, within bounds", 4 * time.Millisecond, false},
		{"woken 15ms late: saturated", 15 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			clock := newFakeClock()
			// 50/s for 1s: 50 arrivals 20ms apart. One worker (max_in_flight
			// 1) means the scheduler never spawns on a timer of its own.
			sc := httpScenario(scenarios.HTTPTarget{Requests: single("http://127.0.0.1:9/")},
				scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 50, To: 50}, Duration: time.Second, MaxInFlight: 1})
			done := make(chan struct{})
			var p *results.PhaseResult
			go func() {
				defer close(done)
				res, err := runWith(context.Background(), sc, Config{Clock: clock, Tick: time.Hour},
					withClients(func(*scenarios.Target, int) (protocols.Client, error) { return instantClient{&calls}, nil }))
				if err != nil {
					t.Error(err)
					return
				}
				p = res.Cases[0].Phases[0]
			}()
			clock.drive(t, done, time.Second, tc.late)
			<-done
			if p == nil {
				t.FailNow()
			}
			if p.Requests != 50 || calls.Load() != 50 || p.Dropped != 0 {
				t.Errorf("completed %d, sent %d, dropped %d; want 50, 50, 0", p.Requests, calls.Load(), p.Dropped)
			}
			// The histogram resolves 1µs and 3 significant digits.
			if lag := p.Generator.SchedLagP99; lag < tc.late || lag > tc.late+tc.late/100+time.Microsecond {
				t.Errorf("scheduler lag p99 = %v, want %v", lag, tc.late)
			}
			if p.Generator.Saturated != tc.saturated {
				t.Errorf("saturated = %v (%s), want %v", p.Generator.Saturated, p.Generator.Reason, tc.saturated)
			}
			if tc.saturated && !strings.Contains(p.Generator.Reason, "the scheduler ran 15ms late") {
				t.Errorf("reason %q does not give the lateness", p.Generator.Reason)
			}
		})
	}
}

// stalledClient never answers: its request ends only with the phase. It
// says on entered when it starts one.
type stalledClient struct{ entered chan<- struct{} }

func (c stalledClient) Do(ctx context.Context, _ int, out *protocols.Outcome) {
	c.entered <- struct{}{}
	<-ctx.Done()
	*out = protocols.Outcome{Kind: protocols.KindTimeout}
}
func (stalledClient) Close() error { return nil }

// TestStalledServerGetsMaxInFlightConnections runs the open model, on a
// clock the test moves, against a server that never answers: each arrival
// that finds no free connection waits spawnPatience for one, then gets a
// new connection, until max_in_flight are open; the rest wait for a busy
// connection and are dropped at the end. Their lateness is the server's,
// not the generator's.
func TestStalledServerGetsMaxInFlightConnections(t *testing.T) {
	for _, limit := range []int{1, 4, 16} {
		t.Run(fmt.Sprintf("max_in_flight %d", limit), func(t *testing.T) {
			var made atomic.Int64
			entered := make(chan struct{}, limit+1)
			clock := newFakeClock()
			sc := httpScenario(scenarios.HTTPTarget{Requests: single("http://127.0.0.1:9/")},
				scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 100, To: 100}, Duration: time.Second, MaxInFlight: limit})
			done := make(chan struct{})
			var p *results.PhaseResult
			go func() {
				defer close(done)
				res, err := runWith(context.Background(), sc, Config{Clock: clock, Tick: time.Hour, Grace: time.Minute},
					withClients(func(*scenarios.Target, int) (protocols.Client, error) {
						made.Add(1)
						return stalledClient{entered}, nil
					}))
				if err != nil {
					t.Error(err)
					return
				}
				p = res.Cases[0].Phases[0]
			}()
			go func() {
				// Once every connection hangs, nothing is armed before the
				// phase's end: move the clock there, so that it ends.
				for range limit {
					<-entered
				}
				clock.advanceTo(time.Second)
			}()
			clock.drive(t, done, time.Second, 0)
			<-done
			if p == nil {
				t.FailNow()
			}
			if made.Load() != int64(limit) {
				t.Errorf("opened %d connections, want max_in_flight %d", made.Load(), limit)
			}
			// The requests the stalled connections carried did not vanish:
			// each is one unfinished failure.
			if want := int64(100 - limit); p.Dropped != want || p.Requests != int64(limit) || p.Errors.Unfinished != int64(limit) {
				t.Errorf("requests %d (%d unfinished), dropped %d; want %d unfinished and %d dropped",
					p.Requests, p.Errors.Unfinished, p.Dropped, limit, want)
			}
			// The first arrival left on time; the histogram's floor is 1µs.
			if p.Generator.SchedLagP99 > time.Microsecond || p.Generator.Saturated {
				t.Errorf("generator blamed for the server's stall: %+v", p.Generator)
			}
		})
	}
}
