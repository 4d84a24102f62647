package runner

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// concurrencyGauge tracks the most requests a handler served at once.
type concurrencyGauge struct{ now, peak atomic.Int64 }

func (g *concurrencyGauge) enter() {
	n := g.now.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func (g *concurrencyGauge) leave() { g.now.Add(-1) }

func runOne(t *testing.T, sc *scenarios.Scenario, cfg Config, opts ...option) *results.PhaseResult {
	t.Helper()
	res, err := runWith(context.Background(), sc, cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res.Cases[0].Phases[len(res.Cases[0].Phases)-1]
}

func TestOpenModelConstantRate(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 400, To: 400}, Requests: 200, Duration: 20 * time.Second, MaxInFlight: 50})
	p := runOne(t, sc, Config{})
	if p.Requests != 200 || p.Dropped != 0 {
		t.Errorf("completed %d, dropped %d; want 200 and 0", p.Requests, p.Dropped)
	}
	// Arrival 199 is not due before 199/400 s: a generator that finishes
	// sooner is not pacing. (Only a lower bound: a busy machine may be late.)
	if p.Elapsed < 495*time.Millisecond {
		t.Errorf("200 arrivals at 400/s took %v, want ≥ 497.5ms", p.Elapsed)
	}
	if p.SendLag == nil || p.SendLag.Count() != p.Requests {
		t.Errorf("send lag not recorded for every request")
	}
	if p.Rate == nil || p.Rate.From != 400 {
		t.Errorf("requested rate not kept: %+v", p.Rate)
	}
}

func TestOpenModelRequestLimit(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 2000, To: 2000}, Requests: 300, MaxInFlight: 20})
	p := runOne(t, sc, Config{})
	if p.Requests != 300 || srv.requests.Load() != 300 {
		t.Errorf("completed %d, server saw %d; want exactly 300", p.Requests, srv.requests.Load())
	}
}

func TestOpenModelMaxInFlightCapsAndCountsDropped(t *testing.T) {
	var g concurrencyGauge
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		g.enter()
		defer g.leave()
		select {
		case <-time.After(200 * time.Millisecond):
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "hello")
	})
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 100, To: 100}, Duration: time.Second, MaxInFlight: 5})
	p := runOne(t, sc, Config{})
	if peak := g.peak.Load(); peak > 5 {
		t.Errorf("server saw %d concurrent requests, want at most max_in_flight 5", peak)
	}
	// Whether the generator is blamed is judged on a fake clock
	// (TestSchedulerOnFakeClock, TestGeneratorJudge): here a busy machine
	// may make the scheduler genuinely late.
	// 5 slots × 200ms serve about 25 of the 100 arrivals; the rest are dropped, not skipped silently.
	if p.Dropped < 50 {
		t.Errorf("dropped = %d, want most of the 100 arrivals", p.Dropped)
	}
	if total := p.Requests + p.Dropped; total < 85 || total > 100 {
		t.Errorf("completed %d + dropped %d = %d, want the 100 arrivals (less those cut by the deadline)",
			p.Requests, p.Dropped, total)
	}
}

// TestOpenModelMeasuresFromScheduledTime is the coordinated-omission check:
// the server stalls its first 300ms; arrivals that pile up behind the two
// connections leave in a burst afterwards. Timed from their schedule, a
// fifth of them waited over 100ms; timed from when they left, only the two
// that were on the wire did.
func TestOpenModelMeasuresFromScheduledTime(t *testing.T) {
	var release atomic.Pointer[time.Time]
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if until := release.Load(); until != nil {
			if wait := time.Until(*until); wait > 0 {
				select {
				case <-time.After(wait):
				case <-r.Context().Done():
				}
			}
		}
		_, _ = io.WriteString(w, "hello")
	})
	until := time.Now().Add(time.Hour) // replaced by the observer below
	release.Store(&until)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		// 100 arrivals 10ms apart, bounded by count so that a busy machine
		// makes the phase longer, never shorter; 10s is only a hard stop.
		scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 100, To: 100}, Requests: 100, Duration: 10 * time.Second, MaxInFlight: 2})
	p := runOne(t, sc, Config{Observer: stallAtStart{release: &release, stall: 300 * time.Millisecond}})
	if p.Requests != 100 {
		t.Fatalf("completed %d of 100 arrivals", p.Requests)
	}
	if got := p.Latency.Quantile(90); got < 100*time.Millisecond {
		t.Errorf("p90 = %v, want ≥ 100ms: arrivals queued behind the stall are not timed from their schedule", got)
	}
	if got := p.SendLag.Quantile(90); got < 100*time.Millisecond {
		t.Errorf("send lag p90 = %v: the backlog did not wait for the stall", got)
	}
	// The 30 queued arrivals leave in a burst: none of them is dropped.
	if p.Dropped != 0 {
		t.Errorf("dropped %d: the backlog should leave in a burst once the stall ends", p.Dropped)
	}
}

// stallAtStart makes the test server stall for the first part of the phase,
// aligned with the phase's own start.
type stallAtStart struct {
	release *atomic.Pointer[time.Time]
	stall   time.Duration
}

func (s stallAtStart) PhaseStarted(results.Snapshot) {
	until := time.Now().Add(s.stall)
	s.release.Store(&until)
}
func (stallAtStart) Progress(results.Snapshot)                        {}
func (stallAtStart) PhaseDone(results.Snapshot, *results.PhaseResult) {}

func TestOpenModelRateRamp(t *testing.T) {
	srv := newCountingServer(t, hello)
	// 0 → 400/s over 1s: N(t) = 200t², 200 arrivals, 50 in the first half.
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "ramp", Rate: scenarios.Rate{From: 0, To: 400}, Duration: time.Second, MaxInFlight: 50})
	p := runOne(t, sc, Config{Tick: 500 * time.Millisecond})
	if total := p.Requests + p.Dropped; total < 185 || total > 200 {
		t.Errorf("completed %d + dropped %d, want about 200 arrivals", p.Requests, p.Dropped)
	}
	// ≈50 arrivals are due in the first half and ≈150 in the second; a late
	// generator can only push completions later, never earlier.
	if len(p.Series) < 2 || p.Series[0].Completed > 60 || p.Series[0].Completed >= p.Series[1].Completed {
		t.Errorf("series does not ramp (want ≈50 then ≈150): %+v", p.Series)
	}
}

func TestConcurrencyRamp(t *testing.T) {
	var g concurrencyGauge
	srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		g.enter()
		defer g.leave()
		time.Sleep(10 * time.Millisecond)
		_, _ = io.WriteString(w, "hello")
	})
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "ramp", ConcurrencyFrom: 1, Concurrency: 4, Duration: 800 * time.Millisecond})
	p := runOne(t, sc, Config{Tick: 200 * time.Millisecond})
	if g.peak.Load() != 4 {
		t.Errorf("peak concurrency %d, want 4 by the end of the ramp", g.peak.Load())
	}
	if len(p.Series) < 3 || p.Series[0].Completed >= p.Series[len(p.Series)-2].Completed {
		t.Errorf("series does not grow with the ramp: %+v", p.Series)
	}
}

func TestTrialsAreKeptAndMedianIsReported(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "warm", Warmup: true, Requests: 20, Concurrency: 1, Trials: 3},
		scenarios.Phase{Name: "m", Requests: 100, Concurrency: 2, Trials: 3})
	res, err := Run(context.Background(), sc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	warm, m := res.Cases[0].Phases[0], res.Cases[0].Phases[1]
	if len(warm.Trials) != 0 || warm.Requests != 20 {
		t.Errorf("warm-up ran %d requests in %d trials; trials apply to measured phases only", warm.Requests, len(warm.Trials))
	}
	if len(m.Trials) != 3 || m.Requests != 300 || m.Latency.Count() != 300 {
		t.Fatalf("measured: %d trials, %d requests, %d samples; want 3, 300, 300", len(m.Trials), m.Requests, m.Latency.Count())
	}
	for i, tr := range m.Trials {
		if tr.Requests != 100 || tr.RPS <= 0 {
			t.Errorf("trial %d = %+v", i, tr)
		}
	}
	s := results.Summarize(res.Cases[0].Measured(""))
	if s.Trials == nil || s.Trials.N != 3 {
		t.Fatalf("stats trials = %+v", s.Trials)
	}
	if s.RPS != s.Trials.RPSMedian || s.RPS < s.Trials.RPSMin || s.RPS > s.Trials.RPSMax {
		t.Errorf("rps %v is not the median of %v", s.RPS, s.Trials.RPS)
	}
}

// spinClient answers instantly but costs CPU, like the work of forming and
// parsing requests: with it, only the generator can be the bottleneck.
type spinClient struct{ cost time.Duration }

func (c spinClient) Do(ctx context.Context, _ int, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	for start := time.Now(); time.Since(start) < c.cost; {
	}
}
func (spinClient) Close() error { return nil }

// TestStarvedGeneratorIsSaturated asks for far more than the process can
// send against a target that is never the bottleneck; the phase must say
// the generator was the limit.
func TestStarvedGeneratorIsSaturated(t *testing.T) {
	sc := httpScenario(scenarios.HTTPTarget{Requests: single("http://127.0.0.1:9/")},
		scenarios.Phase{Name: "flood", Rate: scenarios.Rate{From: 2_000_000, To: 2_000_000}, Duration: time.Second, MaxInFlight: 64})
	p := runOne(t, sc, Config{}, withClients(func(*scenarios.Target, int) (protocols.Client, error) {
		return spinClient{cost: 20 * time.Microsecond}, nil
	}))
	t.Logf("starved: %d completed, %d dropped, generator %+v", p.Requests, p.Dropped, p.Generator)
	if !p.Generator.Saturated || p.Generator.Reason == "" {
		t.Errorf("generator not marked saturated: %+v", p.Generator)
	}
	if s := results.Summarize([]*results.PhaseResult{p}); !s.Generator.Saturated {
		t.Error("Summarize lost the saturation")
	}
}
