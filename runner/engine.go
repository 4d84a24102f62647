package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/loadgate/loadgate/scenarios"
)

// Config tunes a run. The zero value works: it logs nothing, observes
// nothing and uses the net/http client.
type Config struct {
	Logger    zerolog.Logger
	Observer  Observer      // nil = no progress reporting
	NewClient NewClientFunc // nil = NewHTTPClient
	// MaxPhase is the hard deadline of a phase that has no duration (a
	// request count only), so that a stalled server cannot hang the run.
	// Default 1h.
	MaxPhase time.Duration
	// Grace is how long a phase waits, after its deadline, for in-flight
	// requests to abort before it abandons them. Default 5s.
	Grace time.Duration
	// Tick is the time series resolution. Default 1s; tests shorten it.
	Tick time.Duration
}

func (c *Config) defaults() {
	if c.NewClient == nil {
		c.NewClient = NewHTTPClient
	}
	if c.MaxPhase <= 0 {
		c.MaxPhase = time.Hour
	}
	if c.Grace <= 0 {
		c.Grace = 5 * time.Second
	}
	if c.Tick <= 0 {
		c.Tick = time.Second
	}
}

// ErrNoRequests marks a case in which no measured request completed.
var ErrNoRequests = errors.New("no request completed in the measured phases")

// Run drives every case of sc, phase by phase. Cancelling ctx stops the load
// at once (SIGINT): the running phase keeps what it measured, later phases
// are skipped and the result is marked interrupted. Failed requests are data
// in the result; an error means the run itself could not be carried out.
func Run(ctx context.Context, sc *scenarios.Scenario, cfg Config) (*ScenarioResult, error) {
	cfg.defaults()
	res := &ScenarioResult{Scenario: sc, Start: time.Now()}
	defer func() { res.End = time.Now() }()
	for i := range sc.Cases {
		c := &sc.Cases[i]
		cr := &CaseResult{ID: c.ID, Target: c.Target.Name, Matrix: c.Matrix}
		res.Cases = append(res.Cases, cr)
		for j := range c.Phases {
			if ctx.Err() != nil {
				break
			}
			pr, err := runPhase(ctx, sc.Name, c, &c.Phases[j], &cfg)
			if err != nil {
				return res, fmt.Errorf("case %q: phase %q: %w", c.ID, c.Phases[j].Name, err)
			}
			cr.Phases = append(cr.Phases, pr)
		}
		measured := cr.Measured("")
		var n int64
		for _, p := range measured {
			n += p.Requests
		}
		if n == 0 && ctx.Err() == nil {
			cr.Err = ErrNoRequests.Error()
		}
		if ctx.Err() != nil {
			res.Interrupted = true
			break
		}
	}
	return res, nil
}

// phaseRun is the shared state of one phase's workers.
type phaseRun struct {
	phase    *scenarios.Phase
	claimed  atomic.Int64 // requests started, for the request limit
	inFlight atomic.Int64
	weights  []int // cumulative weights of the request mix
}

func runPhase(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cfg *Config) (*PhaseResult, error) {
	mix := len(c.Target.HTTP.Requests)
	res := &PhaseResult{
		Name: ph.Name, Warmup: ph.Warmup, Concurrency: ph.Concurrency,
		Latency: NewHistogram(), Connect: NewHistogram(),
	}
	if mix > 1 {
		for _, r := range c.Target.HTTP.Requests {
			res.ByName = append(res.ByName, &NamedResult{Name: r.Name, Latency: NewHistogram()})
		}
	}
	pr := &phaseRun{phase: ph}
	sum := 0
	for _, r := range c.Target.HTTP.Requests {
		sum += r.Weight
		pr.weights = append(pr.weights, sum)
	}

	clients := make([]Client, 0, ph.Concurrency)
	defer func() {
		for _, cl := range clients {
			_ = cl.Close()
		}
	}()
	for w := 0; w < ph.Concurrency; w++ {
		cl, err := cfg.NewClient(&c.Target, w)
		if err != nil {
			return nil, fmt.Errorf("worker %d: %w", w, err)
		}
		clients = append(clients, cl)
	}
	shards := make([]*shard, min(ph.Concurrency, 2*runtime.GOMAXPROCS(0)))
	for i := range shards {
		shards[i] = newShard(len(res.ByName))
	}
	col := newCollector(res, shards)

	limit := ph.Duration
	if limit <= 0 {
		limit = cfg.MaxPhase
	}
	phaseCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	snap := Snapshot{Scenario: scenario, Case: c.ID, Phase: ph.Name, Warmup: ph.Warmup,
		Planned: ph.Duration, Target: ph.Requests}
	if cfg.Observer != nil {
		cfg.Observer.PhaseStarted(snap)
	}
	cfg.Logger.Debug().Str("case", c.ID).Str("phase", ph.Name).Int("concurrency", ph.Concurrency).Msg("phase started")

	res.Start = time.Now()
	var wg sync.WaitGroup
	for w, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr.work(phaseCtx, w, cl, shards[w%len(shards)])
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	ticker := time.NewTicker(cfg.Tick)
	defer ticker.Stop()
	var grace <-chan time.Time
	deadline := phaseCtx.Done()
	second := 0
	last := res.Start
loop:
	for {
		select {
		case <-done:
			break loop
		case <-deadline:
			grace = time.After(cfg.Grace)
			deadline = nil // workers have seen it; now only wait for them
		case <-grace:
			cfg.Logger.Warn().Str("case", c.ID).Str("phase", ph.Name).
				Int64("in_flight", pr.inFlight.Load()).Msg("in-flight requests did not stop in time; abandoning them")
			break loop
		case now := <-ticker.C:
			pt := col.closeSecond(second, pr.inFlight.Load())
			second++
			if cfg.Observer != nil {
				snap.Elapsed = now.Sub(res.Start)
				snap.Completed, snap.Failed = res.Requests, res.Failed
				snap.RPS = float64(pt.Completed) / now.Sub(last).Seconds()
				snap.P99 = res.Latency.Quantile(99)
				snap.InFlight = pt.InFlight
				cfg.Observer.Progress(snap)
			}
			last = now
		}
	}
	res.End = time.Now()
	res.Elapsed = res.End.Sub(res.Start)
	col.drain()
	if col.pending.Requests > 0 {
		col.closeSecond(second, pr.inFlight.Load())
	}
	res.Interrupted = ctx.Err() != nil
	if cfg.Observer != nil {
		snap.Elapsed = res.Elapsed
		snap.Completed, snap.Failed = res.Requests, res.Failed
		snap.RPS = 0
		if s := res.Elapsed.Seconds(); s > 0 {
			snap.RPS = float64(res.Requests) / s
		}
		snap.P99 = res.Latency.Quantile(99)
		snap.InFlight = 0
		cfg.Observer.PhaseDone(snap, res)
	}
	cfg.Logger.Debug().Str("case", c.ID).Str("phase", ph.Name).Int64("requests", res.Requests).
		Dur("elapsed", res.Elapsed).Bool("interrupted", res.Interrupted).Msg("phase done")
	return res, nil
}

// work is one closed-model worker: request, wait for the response, think,
// repeat, until the phase's deadline or request limit.
func (pr *phaseRun) work(ctx context.Context, w int, cl Client, sh *shard) {
	ph := pr.phase
	if ph.RampUp > 0 && w > 0 {
		// Worker w starts at w/N of the ramp, so N workers are running by its end.
		if !sleepCtx(ctx, time.Duration(int64(ph.RampUp)*int64(w)/int64(ph.Concurrency))) {
			return
		}
	}
	rng := rand.New(rand.NewPCG(uint64(w), 0x9e3779b97f4a7c15))
	var think *time.Timer
	if ph.ThinkTime > 0 {
		think = time.NewTimer(time.Hour)
		think.Stop()
	}
	var out Outcome
	for ctx.Err() == nil {
		if ph.Requests > 0 && pr.claimed.Add(1) > ph.Requests {
			return
		}
		req := pr.pick(rng)
		pr.inFlight.Add(1)
		// In the closed model a request is due when its worker is ready,
		// so latency runs from here, not from when the bytes left.
		start := time.Now()
		cl.Do(ctx, req, &out)
		latency := time.Since(start)
		pr.inFlight.Add(-1)
		if ctx.Err() != nil && out.Kind != KindNone {
			// Cut short by the phase's end, not by the server: not a
			// completed request, so it is neither counted nor timed.
			return
		}
		sh.record(req, latency, &out)
		if think != nil {
			think.Reset(ph.ThinkTime)
			select {
			case <-ctx.Done():
				think.Stop()
				return
			case <-think.C:
			}
		}
	}
}

func (pr *phaseRun) pick(rng *rand.Rand) int {
	if len(pr.weights) == 1 {
		return 0
	}
	x := rng.IntN(pr.weights[len(pr.weights)-1])
	for i, cum := range pr.weights {
		if x < cum {
			return i
		}
	}
	return len(pr.weights) - 1
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
