package runner

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// scriptedServer answers request n (0-based, in the order the clients
// start them) after answer(n, at) on the fake clock, where at is when the
// request started; never (ok false) leaves it waiting until its context
// ends. It counts what it received, as a real server's log would. The
// answers are its own events, not the clock's timers, so that the test
// moves the clock only while every worker is parked, never between an
// answer and the worker's waking.
type scriptedServer struct {
	clock    *fakeClock
	answer   func(n int64, at time.Duration) (after time.Duration, ok bool)
	received atomic.Int64

	// giveUp is when the phase gives its requests up (its duration plus
	// graceful stop): an answer due then or later is never delivered, as
	// the clock's timers cancel contexts on goroutines of their own.
	giveUp time.Duration

	mu      sync.Mutex
	parked  int64 // clients waiting for an answer
	pending []scriptedAnswer
}

type scriptedAnswer struct {
	at   time.Duration
	wake chan struct{}
	ctx  context.Context
}

type scriptedClient struct{ s *scriptedServer }

func (c scriptedClient) Do(ctx context.Context, _ int, out *protocols.Outcome) {
	s := c.s
	n := s.received.Add(1) - 1
	now := s.clock.now0()
	after, ok := s.answer(n, now)
	if ok && after == 0 {
		*out = protocols.Outcome{Status: 200}
		return
	}
	wake := make(chan struct{})
	s.mu.Lock()
	s.parked++
	if ok {
		s.pending = append(s.pending, scriptedAnswer{at: now + after, wake: wake, ctx: ctx})
	}
	s.mu.Unlock()
	select {
	case <-wake: // deliver unparked it
		*out = protocols.Outcome{Status: 200}
		return
	case <-ctx.Done():
	}
	select {
	case <-wake: // answered in time; the context ended since
		*out = protocols.Outcome{Status: 200}
	default:
		s.mu.Lock()
		s.parked--
		s.pending = slices.DeleteFunc(s.pending, func(a scriptedAnswer) bool { return a.wake == wake })
		s.mu.Unlock()
		*out = protocols.Outcome{Kind: protocols.KindTimeout}
	}
}

func (scriptedClient) Close() error { return nil }

// nextAnswer is when the earliest pending answer is due.
func (s *scriptedServer) nextAnswer() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var at time.Duration
	for i, a := range s.pending {
		if i == 0 || a.at < at {
			at = a.at
		}
	}
	return at, len(s.pending) > 0
}

// deliver sends every answer due by at.
func (s *scriptedServer) deliver(at time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = slices.DeleteFunc(s.pending, func(a scriptedAnswer) bool {
		if a.at > at || a.at >= s.giveUp || a.ctx.Err() != nil {
			// Not due, or given up before it was: its client sees its
			// context's end.
			return false
		}
		s.parked--
		close(a.wake)
		return true
	})
}

func (s *scriptedServer) waiting() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parked
}

// now0 is the clock's time since its base.
func (c *fakeClock) now0() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// drive moves the clock from one event to the next (an armed timer or a
// pending answer), but only while ready holds, until done closes.
func (s *scriptedServer) drive(t *testing.T, done <-chan struct{}, ready func() bool) {
	t.Helper()
	c := s.clock
	stuck := time.NewTimer(time.Minute) // a failure guard, never a pass condition
	defer stuck.Stop()
	poll := time.NewTicker(100 * time.Microsecond)
	defer poll.Stop()
	for {
		if ready() {
			when, ok := c.next(1 << 62)
			if at, pending := s.nextAnswer(); pending && (!ok || at <= when) {
				when, ok = at, true
			}
			if ok {
				c.advanceTo(when)
				s.deliver(when)
				continue
			}
		}
		select {
		case <-done:
			return
		case <-c.changed:
		case <-poll.C:
		case <-stuck.C:
			t.Fatal("the engine neither finished nor armed a timer")
		}
	}
}

// tickCounter counts the ticks the engine has looked at: the test moves
// the clock on only once the tick due has been taken in.
type tickCounter struct{ n atomic.Int64 }

func (*tickCounter) PhaseStarted(results.Snapshot)                    {}
func (c *tickCounter) Progress(results.Snapshot)                      { c.n.Add(1) }
func (*tickCounter) PhaseDone(results.Snapshot, *results.PhaseResult) {}

// freezesAt answers in 7ms (so that no answer falls on a tick) the
// requests sent before at, then never.
func freezesAt(at time.Duration) func(int64, time.Duration) (time.Duration, bool) {
	return func(_ int64, start time.Duration) (time.Duration, bool) {
		return 7 * time.Millisecond, start < at
	}
}

// waitAbort is an abort judge that fails when the last second's p99,
// waiting requests included, reaches limit.
func waitAbort(limit time.Duration) func(*scenarios.Case, *scenarios.Phase, time.Duration, func(time.Duration) results.Stats) *results.Aborted {
	return func(_ *scenarios.Case, _ *scenarios.Phase, _ time.Duration, stats func(time.Duration) results.Stats) *results.Aborted {
		st := stats(time.Second)
		if st.Requests == 0 && st.Waiting == 0 {
			return nil // no evidence either way
		}
		if st.Latency.P99 >= limit {
			return &results.Aborted{Rule: "p99 < " + limit.String(), Actual: "p99 = " + st.Latency.P99.String()}
		}
		return nil
	}
}

// TestEveryRequestEndsOnce runs phases on the fake clock against
// scripted servers and checks the bookkeeping: every request the server
// received is one success or one failure, the ones left waiting are
// unfinished with their age, stalls are found, and the phase says why it
// ended.
func TestEveryRequestEndsOnce(t *testing.T) {
	tests := []struct {
		name   string
		phase  scenarios.Phase
		answer func(n int64, at time.Duration) (time.Duration, bool)
		abort  time.Duration // an abort judge on the last second's p99; 0: none

		wantUnfinished int64
		wantAgeMin     time.Duration // of the unfinished (failed latency's min)
		wantStall      results.Stall // the first stall; zero: none
		// anyStall skips the stall check: once a phase stops sending, the
		// fake clock may run ahead of a worker that records an answer.
		anyStall    bool
		wantEnded   string
		wantAborted bool
	}{
		{
			name:   "a server that freezes before the end: 4 waiting for 2s are unfinished",
			phase:  scenarios.Phase{Name: "m", Concurrency: 4, Duration: 3 * time.Second},
			answer: freezesAt(time.Second),
			// The last answers came at 1.001s (143 × 7ms); the requests
			// sent then waited until the end.
			wantUnfinished: 4, wantAgeMin: 1990 * time.Millisecond, // the histogram's precision
			wantStall: results.Stall{At: 1001 * time.Millisecond, Duration: 1999 * time.Millisecond, Waiting: 4},
			wantEnded: results.EndDuration,
		},
		{
			name:   "answers within the graceful stop count, latency from when they were sent",
			phase:  scenarios.Phase{Name: "m", Concurrency: 2, Duration: time.Second, GracefulStop: time.Second},
			answer: func(int64, time.Duration) (time.Duration, bool) { return 300 * time.Millisecond, true },
			// 2 workers × ceil(1s/300ms) = 8 requests, every one answered.
			wantUnfinished: 0, wantEnded: results.EndDuration, anyStall: true,
		},
		{
			name:   "the graceful stop runs out: a request answered after it is unfinished",
			phase:  scenarios.Phase{Name: "m", Concurrency: 1, Duration: time.Second, GracefulStop: 500 * time.Millisecond},
			answer: func(n int64, _ time.Duration) (time.Duration, bool) { return 700 * time.Millisecond, true },
			// Requests at 0 and 700ms; the second is answered at 1.4s,
			// before the graceful stop ends at 1.5s.
			wantUnfinished: 0, wantEnded: results.EndDuration, anyStall: true,
		},
		{
			name:   "a request still waiting at the end of the graceful stop",
			phase:  scenarios.Phase{Name: "m", Concurrency: 1, Duration: time.Second, GracefulStop: 200 * time.Millisecond},
			answer: func(n int64, _ time.Duration) (time.Duration, bool) { return 700 * time.Millisecond, true },
			// The second request, sent at 700ms, is 500ms old at 1.2s.
			wantUnfinished: 1, wantAgeMin: 499 * time.Millisecond, wantEnded: results.EndDuration, anyStall: true,
		},
		{
			name:  "the open model against a server that never answers every second request",
			phase: scenarios.Phase{Name: "m", Rate: scenarios.Rate{From: 50, To: 50}, Duration: 2 * time.Second, MaxInFlight: 1000},
			answer: func(n int64, _ time.Duration) (time.Duration, bool) {
				return 0, n%2 == 0
			},
			// Every second request the server received is unfinished
			// (whatever the fake clock let the schedule send); the last of
			// them was due by 1.98s: 20ms old at the end, at least.
			wantUnfinished: -1, wantAgeMin: 19 * time.Millisecond, wantEnded: results.EndDuration, anyStall: true,
		},
		{
			name:   "an abort rule fires on requests that wait, with nothing answered",
			phase:  scenarios.Phase{Name: "m", Concurrency: 4, Duration: 10 * time.Second},
			answer: freezesAt(time.Second),
			abort:  time.Second,
			// At the tick at 3s the 4 requests sent at 1.001s have waited
			// 1.999s, more than a tick: p99 ≥ 1s, and the rule fires.
			wantUnfinished: 4, wantAgeMin: 1990 * time.Millisecond, // the histogram's precision
			wantStall: results.Stall{At: 1001 * time.Millisecond, Duration: 1999 * time.Millisecond, Waiting: 4},
			wantEnded: results.EndAborted, wantAborted: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			srv := &scriptedServer{clock: clock, answer: tt.answer, giveUp: tt.phase.Duration + tt.phase.GracefulStop}
			sc := httpScenario(scenarios.HTTPTarget{Requests: single("http://127.0.0.1:9/")}, tt.phase)
			ticks := &tickCounter{}
			cfg := Config{Clock: clock, Tick: time.Second, Grace: time.Minute, Observer: ticks}
			clients := withClients(func(*scenarios.Target, int) (protocols.Client, error) { return scriptedClient{srv}, nil })
			if tt.abort > 0 {
				cfg.Judge.Abort = waitAbort(tt.abort)
			}
			done := make(chan struct{})
			var res *results.ScenarioResult
			go func() {
				defer close(done)
				var err error
				if res, err = runWith(context.Background(), sc, cfg, clients); err != nil {
					t.Error(err)
				}
			}()
			ph := tt.phase
			srv.drive(t, done, func() bool {
				now := clock.now0()
				if ticks.n.Load() < int64(now/time.Second) {
					return false // a tick due is not looked at yet
				}
				if now >= ph.Duration {
					return true // nothing more is sent
				}
				if ph.Rate.Open() {
					// The schedule and the spawner wait on the clock's
					// timers: move it as they arm them.
					return true
				}
				return srv.waiting() == int64(ph.Concurrency)
			})
			<-done
			if res == nil || len(res.Cases) == 0 {
				t.FailNow()
			}
			p := res.Cases[0].Phases[0]
			if got := srv.received.Load(); p.Requests != got || p.Succeeded+p.Failed != got {
				t.Errorf("requests %d (succeeded %d + failed %d), the server received %d", p.Requests, p.Succeeded, p.Failed, got)
			}
			wantUnfinished := tt.wantUnfinished
			if wantUnfinished < 0 {
				wantUnfinished = srv.received.Load() / 2
			}
			if p.Errors.Unfinished != wantUnfinished || p.Failed != wantUnfinished {
				t.Errorf("unfinished %d, failed %d, want %d both (errors %+v)", p.Errors.Unfinished, p.Failed, wantUnfinished, p.Errors)
			}
			if wantUnfinished > 0 {
				if got := p.FailedLatency.Min(); got < tt.wantAgeMin {
					t.Errorf("the youngest unfinished request is %v old, want at least %v", got, tt.wantAgeMin)
				}
				if p.ErrorSamples["unfinished"] == "" {
					t.Errorf("no sample message for the unfinished requests: %v", p.ErrorSamples)
				}
			}
			var first results.Stall
			if len(p.Stalls) > 0 {
				first = p.Stalls[0]
			}
			if first != tt.wantStall && !tt.anyStall {
				t.Errorf("stalls %+v, want first %+v", p.Stalls, tt.wantStall)
			}
			if p.Ended != tt.wantEnded || (p.Aborted != nil) != tt.wantAborted {
				t.Errorf("ended %q (%s), aborted %v; want %q, aborted %v", p.Ended, p.EndedDetail, p.Aborted, tt.wantEnded, tt.wantAborted)
			}
		})
	}
}

// TestTrialsKeepStallsAndWhyTheyEnded merges two trials: the second's
// stall is kept at its time in the merged phase, and its early end is
// what the whole says.
func TestTrialsKeepStallsAndWhyTheyEnded(t *testing.T) {
	trial := func(stalls []results.Stall, ended, detail string) *results.PhaseResult {
		return &results.PhaseResult{Name: "m", Elapsed: 3 * time.Second, Latency: results.NewHistogram(), FailedLatency: results.NewHistogram(),
			Connect: results.NewHistogram(), Stalls: stalls, Ended: ended, EndedDetail: detail}
	}
	m := results.MergeTrialRuns([]*results.PhaseResult{
		trial([]results.Stall{{At: time.Second, Duration: time.Second, Waiting: 2}}, results.EndDuration, ""),
		trial([]results.Stall{{At: 500 * time.Millisecond, Duration: 2 * time.Second, Waiting: 4}}, results.EndData, "data source `users` ran out of unique rows (2)"),
	})
	want := []results.Stall{{At: time.Second, Duration: time.Second, Waiting: 2}, {At: 3500 * time.Millisecond, Duration: 2 * time.Second, Waiting: 4}}
	if !slices.Equal(m.Stalls, want) {
		t.Errorf("stalls %+v, want %+v", m.Stalls, want)
	}
	if m.Ended != results.EndData || m.EndedDetail == "" {
		t.Errorf("ended %q (%q), want the second trial's early end", m.Ended, m.EndedDetail)
	}
}
