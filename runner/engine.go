package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

// Config tunes a run. The zero value works: it logs nothing, observes
// nothing and uses the net/http client.
type Config struct {
	Logger   zerolog.Logger
	Observer Observer // nil = no progress reporting
	// NewClient makes every worker's client; nil picks the client for the
	// target's protocol, sharing a case's connections where the protocol
	// does (caseClients).
	NewClient protocols.NewClientFunc
	// MaxPhase is the hard deadline of a phase that has no duration (a
	// request count only), so that a stalled server cannot hang the run.
	// Default 1h.
	MaxPhase time.Duration
	// Grace is how long a phase waits, after its deadline, for in-flight
	// requests to abort before it abandons them. Default 5s.
	Grace time.Duration
	// Tick is the time series resolution. Default 1s; tests shorten it.
	Tick time.Duration
	// LogDir receives server-<name>.log for every server started; "" keeps
	// only the last lines, for error messages.
	LogDir string
	// MonitorEvery is the sampling interval of servers under test. Default 1s.
	MonitorEvery time.Duration
	// Kill, when closed, ends every server under test with SIGKILL at once
	// instead of waiting out its stop timeout (a second Ctrl-C).
	Kill <-chan struct{}
	// Clock times the requests, paces the open model, ends the phases,
	// ticks (stalls and abort windows are measurements too) and reads the
	// generator's CPU. nil = WallClock. (Grace stays on the wall clock: it
	// guards against a client that ignores its context.)
	Clock Clock

	// Judge holds the rule evaluations the engine needs while it runs
	// (capacity SLOs, abort rules, adaptive trials); the CLI fills it from
	// the compiled thresholds, since rules are not the engine's to parse.
	Judge Judge

	// feeds are the run's data feeds, made by Run for the whole run.
	feeds protocols.Feeds
	// stopRun ends the run after an abort rule failed; set by Run.
	stopRun func(*results.Aborted)
	// ignoreSaturation judges probes by their SLO alone. Tests set it: on
	// a test machine busy with other builds, a short probe's scheduler lag
	// says nothing about the path of the search they check.
	ignoreSaturation bool
	// Workers runs every phase on worker goroutines, never on an event
	// loop (LOADGATE_EVENT_LOOP=false).
	Workers bool
}

// Judge evaluates rules for the engine while a run goes on. A nil field
// means none: a search phase then cannot run (Run fails), no threshold
// aborts, and adaptive trials stop at their minimum.
type Judge struct {
	// SLO judges one probe of phase ph of case c: passed, and the values
	// the rule saw ("p99 = 61ms, error_rate = 0"). An error (a rule that
	// cannot be evaluated) fails the probe with err as its reason.
	SLO func(c *scenarios.Case, ph *scenarios.Phase, probe results.Stats) (passed bool, actual string, err error)
	// Abort checks the abort: true thresholds of case c during phase ph
	// (warm-ups and search probes included), once a tick: stats(0) is the
	// phase so far, stats(w) its last w (whole ticks, at most 5 min). The
	// runner keeps per-second figures only as far back as it has been
	// asked, so a rule with a window must ask on every call, as evaluating
	// every rule each time does. It returns the first failing rule, or
	// nil; the runner fills its Case, Phase and At when left empty.
	Abort func(c *scenarios.Case, ph *scenarios.Phase, elapsed time.Duration, stats func(window time.Duration) results.Stats) *results.Aborted
	// Decisive reports whether every regressed() rule of the cases that
	// ran phase ph (their results so far, trials included) is decisive:
	// pass or regressed, not inconclusive.
	Decisive func(ph *scenarios.Phase, cases []*results.CaseResult) bool
}

func (c *Config) defaults() {
	if c.MaxPhase <= 0 {
		c.MaxPhase = time.Hour
	}
	if c.Grace <= 0 {
		c.Grace = 5 * time.Second
	}
	if c.Tick <= 0 {
		c.Tick = time.Second
	}
	if c.Clock == nil {
		c.Clock = WallClock{}
	}
}

// Run drives every case of sc, phase by phase. Cancelling ctx stops the load
// at once (SIGINT): the running phase keeps what it measured, later phases
// are skipped and the result is marked interrupted. Failed requests are data
// in the result; an error means the run itself could not be carried out —
// a server under test that did not start or exited during the run among
// them — and comes with whatever was measured before.
func Run(ctx context.Context, sc *scenarios.Scenario, cfg Config) (*results.ScenarioResult, error) {
	cfg.defaults()
	cfg.feeds = protocols.NewFeeds(sc.Data)
	res := &results.ScenarioResult{Scenario: sc, Start: cfg.Clock.Now()}
	defer func() { res.End = cfg.Clock.Now() }()
	if err := checkJudge(sc, cfg.Judge); err != nil {
		return res, err
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cfg.stopRun = func(a *results.Aborted) {
		// Called from the collector's goroutine, which is Run's own.
		if res.Aborted == nil {
			res.Aborted = a
		}
		cancel(errAborted)
	}
	sys := sut.NewSystems(sut.Options{Logger: cfg.Logger, LogDir: cfg.LogDir, MonitorEvery: cfg.MonitorEvery, Kill: cfg.Kill}, cancel)
	defer sys.StopAll()
	// A monitored process that is gone fails the run before any load.
	if err := sys.ResolveMonitors(sc); err != nil {
		return res, err
	}

	caseResults := make([]*results.CaseResult, len(sc.Cases))
	for _, group := range caseGroups(sc) {
		if runCtx.Err() != nil {
			break
		}
		cases := make([]*scenarios.Case, len(group))
		for gi, i := range group {
			cases[gi] = &sc.Cases[i]
		}
		if err := sys.Prepare(runCtx, sc, cases); err != nil {
			res.Cases = collect(caseResults)
			return res, err
		}
		for _, i := range group {
			c := &sc.Cases[i]
			caseResults[i] = &results.CaseResult{ID: c.ID, Target: c.Target.Name, Matrix: c.Matrix}
		}
		if err := runGroup(runCtx, sc, group, caseResults, sys, &cfg); err != nil {
			res.Cases = collect(caseResults)
			return res, err
		}
		for _, i := range group {
			redactSamples(sc, caseResults[i])
			if runCtx.Err() == nil {
				caseResults[i].Err = results.CarriedOut(caseResults[i].Measured(""))
			}
		}
	}
	res.Cases = collect(caseResults)
	if a := phaseAbort(res.Cases); a != nil {
		res.Aborted = a
	}
	if err := sut.ExitCause(runCtx); err != nil {
		return res, err
	}
	res.Interrupted = ctx.Err() != nil
	return res, nil
}

// phaseRun is the shared state of one phase's workers.
type phaseRun struct {
	phase     *scenarios.Phase
	target    *scenarios.Target
	newClient protocols.NewClientFunc
	feeds     protocols.Feeds
	flow      bool // the target runs a flow: workers iterate, not request
	clock     Clock
	start     time.Time
	end       time.Time // when the phase stops sending: its duration, or the run's hard deadline
	// grace is how long requests in flight at end may take to be answered
	// (graceful_stop, at most the target's timeout); reqCtx, which every
	// request is sent with, ends then, or at once on an interrupt or an
	// abort, and a request it cut short is a failure of KindUnfinished.
	grace      time.Duration
	reqCtx     context.Context
	cancelReqs context.CancelFunc
	// board holds when every request in flight was due, for the
	// collector: a request still waiting is evidence of its latency.
	board  waitBoard
	stalls stallWatch // owned by the collector's goroutine
	// giveUp is when the requests still waiting were given up, from the
	// phase's start: the end of its graceful stop, or an abort's time.
	giveUp   atomic.Int64
	shards   []*shard
	weights  []int // cumulative weights of the request mix
	claimed  atomic.Int64
	inFlight atomic.Int64
	// exhausted is set when a user found a data source with no row left
	// (on_exhausted: stop): the open model's scheduler then stops.
	exhausted atomic.Bool
	dataEnd   chan struct{} // closed when exhausted is set
	// watch evaluates the abort rules each tick (nil: none); stop ends
	// the phase's load when one fails.
	watch   *abortWatch
	stop    context.CancelFunc
	endOnce sync.Once
	wg      sync.WaitGroup

	schedLag *results.Histogram // owned by the open model's schedule holder (relay)
	// idleHandoffs counts arrivals taken while another connection was
	// free too: when the schedule still fell behind, the pacing, not the
	// connections, was the limit. Owned by the schedule holder.
	idleHandoffs int64

	mu      sync.Mutex
	clients []protocols.Client
	spawned int
	err     error // the first client that could not be made
}

// newPhaseResult is the empty result of phase ph of target t, with a
// named result per entry of a mix of several, or per step of a flow.
func newPhaseResult(ph *scenarios.Phase, t *scenarios.Target, mix []mixEntry) *results.PhaseResult {
	res := &results.PhaseResult{
		Name: ph.Name, Warmup: ph.Warmup, Concurrency: ph.Concurrency,
		Latency: results.NewHistogram(), FailedLatency: results.NewHistogram(), Connect: results.NewHistogram(),
	}
	if ph.Rate.Open() {
		rate := ph.Rate
		res.Rate = &rate
		res.SendLag = results.NewHistogram()
	}
	flow := flowOf(t)
	if len(mix) > 1 && flow == nil {
		for _, r := range mix {
			res.ByName = append(res.ByName, &results.NamedResult{Name: r.name, Latency: results.NewHistogram()})
		}
	}
	if flow != nil {
		// Every step is a named request, in flow order, even a single one.
		for _, st := range flow.Steps {
			res.ByName = append(res.ByName, &results.NamedResult{Name: st.Name, Latency: results.NewHistogram()})
		}
		res.Iterations = &results.IterationResult{Latency: results.NewHistogram()}
	}
	return res
}

func runPhase(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cfg *Config, label string) (*results.PhaseResult, error) {
	open := ph.Rate.Open()
	mix := requestMix(&c.Target)
	flow := flowOf(&c.Target) != nil
	res := newPhaseResult(ph, &c.Target, mix)
	newClient := cfg.NewClient
	if newClient == nil {
		newClient = NewClient
	}
	pr := &phaseRun{phase: ph, target: &c.Target, newClient: newClient, feeds: cfg.feeds, flow: flow,
		clock: cfg.Clock, schedLag: results.NewHistogram(), dataEnd: make(chan struct{})}
	pr.weights = cumulativeWeights(mix)
	defer pr.closeClients()

	parallel := parallelism(ph)
	pr.shards = make([]*shard, max(1, min(parallel, 2*runtime.GOMAXPROCS(0))))
	for i := range pr.shards {
		pr.shards[i] = newShard(len(res.ByName), open, flow)
		if countsStatus(&c.Target) {
			pr.shards[i].statuses = new(statusCounts)
		}
	}
	col := newCollector(res, pr.shards)
	if pr.watch = newAbortWatch(cfg, c, ph); pr.watch != nil {
		col.ring = pr.watch.ring
	}

	phaseName := ph.Name
	if label != "" {
		phaseName += " (" + label + ")"
	}
	snap := results.Snapshot{Scenario: scenario, Case: c.ID, Phase: phaseName, Warmup: ph.Warmup,
		Planned: ph.Duration, Target: ph.Requests}
	if cfg.Observer != nil {
		cfg.Observer.PhaseStarted(snap)
	}
	cfg.Logger.Debug().Str("case", c.ID).Str("phase", phaseName).Int("concurrency", ph.Concurrency).
		Float64("rate", ph.Rate.To).Msg("phase started")

	loops := pr.loopsFor(cfg, c.ID)
	// Closed-model clients are made before the clock starts, so a setup
	// problem fails the phase before any request is sent.
	if !open && loops == nil {
		for w := 0; w < ph.Concurrency; w++ {
			if _, err := pr.addClient(); err != nil {
				return nil, err
			}
		}
	}
	// The phase's time starts now, once its workers exist: making them is
	// not load, and a deadline started earlier would cut the measured time
	// short by however long that took on a busy machine.
	limit := ph.Duration
	if limit <= 0 {
		limit = cfg.MaxPhase
	}
	clock := cfg.Clock
	cpu0 := clock.CPU()
	res.Start = clock.Now()
	pr.start = res.Start
	pr.grace = gracefulStop(ph, &c.Target)
	res.GracefulStop = pr.grace
	// Two contexts: sending stops at the phase's end (phaseCtx), the
	// requests already sent may be answered until the graceful stop has
	// passed too (reqCtx). An interrupt or an abort ends both at once.
	reqCtx, cancelReqs := clock.WithTimeout(ctx, limit+pr.grace)
	defer cancelReqs()
	pr.reqCtx, pr.cancelReqs = context.WithCancel(reqCtx)
	defer pr.cancelReqs()
	phaseCtx, cancel := clock.WithTimeout(pr.reqCtx, limit)
	defer cancel()
	phaseCtx, pr.stop = context.WithCancel(phaseCtx)
	defer pr.stop()
	pr.end = res.Start.Add(limit)
	pr.giveUp.Store(int64(limit + pr.grace))
	var sent atomic.Int64
	// The first tick is armed before any load, so that it falls a tick
	// after the phase's start however late await begins.
	ticker := clock.NewTimer(cfg.Tick)
	defer ticker.Stop()
	var done <-chan struct{}
	if loops != nil {
		done = pr.startLoops(loops, parallel, &sent)
	} else {
		done = pr.startWorkers(phaseCtx, open, parallel, &sent)
	}
	second := pr.await(done, ticker, cfg, col, res, &snap)
	// The requests answered in the graceful stop are counted, so the time
	// the server took to answer them is measured time too: an overloaded
	// server's backlog, answered after the end, must not read as
	// throughput it never had. It ends when the last request did, or when
	// the rest were given up, however late this goroutine got here.
	res.End = res.Start.Add(pr.gaveUpAt(clock.Since(res.Start)))
	res.Elapsed = res.End.Sub(res.Start)
	pr.finish(col, res, second)
	res.Interrupted = ctx.Err() != nil && res.Aborted == nil
	res.Ended, res.EndedDetail = pr.ended(ctx, res, &sent)
	res.Generator.CPU = cpuShare(clock.CPU()-cpu0, clock.Since(res.Start))
	if open {
		pr.openFigures(res, done, &sent)
	}
	if err := pr.clientErr(); err != nil {
		return nil, err
	}
	if cfg.Observer != nil {
		updateSnapshot(&snap, res, res.Elapsed, res.Succeeded, res.Elapsed, 0)
		cfg.Observer.PhaseDone(snap, res)
	}
	cfg.Logger.Debug().Str("case", c.ID).Str("phase", phaseName).Int64("requests", res.Requests).
		Int64("dropped", res.Dropped).Dur("elapsed", res.Elapsed).Bool("interrupted", res.Interrupted).Msg("phase done")
	return res, nil
}

// cumulativeWeights are the running sums of the mix's weights, for pick.
func cumulativeWeights(mix []mixEntry) []int {
	var weights []int
	sum := 0
	for _, r := range mix {
		sum += r.weight
		weights = append(weights, sum)
	}
	return weights
}

// parallelism is how many requests of phase ph may be in flight at once:
// its workers in the closed model, its max_in_flight in the open one.
func parallelism(ph *scenarios.Phase) int {
	if !ph.Rate.Open() {
		return ph.Concurrency
	}
	if ph.MaxInFlight <= 0 {
		return scenarios.DefaultMaxInFlight
	}
	return ph.MaxInFlight
}

// startWorkers starts the open model's scheduler, or one goroutine per
// closed-model client; the channel closes when all of them have returned.
// The open model counts in sent the arrivals taken for sending.
func (pr *phaseRun) startWorkers(ctx context.Context, open bool, parallel int, sent *atomic.Int64) <-chan struct{} {
	if open {
		pr.wg.Add(1)
		go func() {
			defer pr.wg.Done()
			pr.schedule(ctx, parallel, sent)
		}()
	} else {
		for w := range pr.clients {
			pr.wg.Add(1)
			go func() {
				defer pr.wg.Done()
				pr.worker(ctx, w, pr.clients[w], pr.shards[w%len(pr.shards)])
			}()
		}
	}
	done := make(chan struct{})
	go func() { pr.wg.Wait(); close(done) }()
	return done
}

// abort stops the phase's load at once and, through Run, the rest of the
// run: a failed abort rule means the answer is known and more load would
// only cost time (SPEC §4).
func (pr *phaseRun) abort(cfg *Config, a *results.Aborted) {
	cfg.Logger.Warn().Str("case", a.Case).Str("phase", a.Phase).Str("rule", a.Rule).
		Dur("at", a.At).Str("actual", a.Actual).Msg("abort rule failed; stopping the run")
	pr.stop()
	// The answer is known: requests in flight are not waited for.
	pr.giveUp.Store(int64(a.At))
	pr.cancelReqs()
	if cfg.stopRun != nil {
		cfg.stopRun(a)
	}
}

// openFigures adds the open model's figures to res: the arrivals dropped,
// and, once the scheduler is done, its lag and the generator's verdict.
func (pr *phaseRun) openFigures(res *results.PhaseResult, done <-chan struct{}, sent *atomic.Int64) {
	if !pr.exhausted.Load() {
		// Arrivals after the data ran out were not due: the phase ended.
		res.Dropped = dropped(pr.phase, res.Elapsed, sent.Load())
	}
	var idleShare float64
	select {
	case <-done: // the scheduler has finished with its figures
		res.Generator.SchedLagP99 = pr.schedLag.Quantile(99)
		if s := sent.Load(); s > 0 {
			idleShare = float64(pr.idleHandoffs) / float64(s)
		}
	default:
	}
	var dropShare float64
	if total := res.Requests + res.Dropped; total > 0 {
		dropShare = float64(res.Dropped) / float64(total)
	}
	res.Generator.Judge(dropShare, idleShare)
}

// dropped counts the arrivals due before the phase ended (within its request
// limit) that were never handed to a worker.
func dropped(ph *scenarios.Phase, elapsed time.Duration, sent int64) int64 {
	end := elapsed
	if ph.Duration > 0 && end > ph.Duration {
		end = ph.Duration
	}
	due := arrivalsDue(ph.Rate, ph.Duration, end)
	if ph.Requests > 0 && due > ph.Requests {
		due = ph.Requests
	}
	return max(0, due-sent)
}

// addClient makes one more worker client; the phase closes them all at its end.
func (pr *phaseRun) addClient() (protocols.Client, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	cl, err := pr.newClient(pr.target, pr.spawned)
	if err == nil && pr.flow {
		if it, ok := cl.(protocols.Iterator); ok {
			it.Bind(pr.feeds)
		} else {
			_ = cl.Close()
			err = fmt.Errorf("target %q: its client cannot run a flow", pr.target.Name)
		}
	}
	if err != nil {
		err = fmt.Errorf("worker %d: %w", pr.spawned, err)
		if pr.err == nil {
			pr.err = err
		}
		return nil, err
	}
	pr.spawned++
	pr.clients = append(pr.clients, cl)
	return cl, nil
}

func (pr *phaseRun) clientErr() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.err
}

func (pr *phaseRun) closeClients() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for _, cl := range pr.clients {
		_ = cl.Close()
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

func sleepCtx(ctx context.Context, clock Clock, d time.Duration) bool {
	t := clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}
