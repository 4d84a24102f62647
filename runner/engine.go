package runner

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

// Run drives every case of sc, phase by phase. Cancelling ctx stops the load
// at once (SIGINT): the running phase keeps what it measured, later phases
// are skipped and the result is marked interrupted. Failed requests are data
// in the result; an error means the run itself could not be carried out —
// a server under test that did not start or exited during the run among
// them — and comes with whatever was measured before.
func Run(ctx context.Context, sc *scenarios.Scenario, cfg Config) (*results.ScenarioResult, error) {
	return runWith(ctx, sc, cfg)
}

// scenarioRun is the state of one Run: its settings, defaulted, what Run
// makes for the whole run, and the seams its options set. The phases of a
// case see it through their caseRun.
type scenarioRun struct {
	Config
	// feeds are the run's data feeds, shared by every case and phase.
	feeds protocols.Feeds
	// stopRun ends the run after an abort rule failed.
	stopRun func(*results.Aborted)
	// clients, when set, makes every worker's client in place of the
	// target's protocol.
	clients protocols.NewClientFunc
	// ignoreSaturation judges probes by their SLO alone: on a machine busy
	// with other work, a short probe's scheduler lag says nothing about
	// the path of a search.
	ignoreSaturation bool
}

// option sets a seam of a run before it starts. Only tests have a reason
// to: their options are in seams_test.go.
type option func(*scenarioRun)

// runWith is Run with opts applied to the run.
func runWith(ctx context.Context, sc *scenarios.Scenario, cfg Config, opts ...option) (*results.ScenarioResult, error) {
	cfg.defaults()
	run := &scenarioRun{Config: cfg, feeds: protocols.NewFeeds(sc.Data)}
	for _, o := range opts {
		o(run)
	}
	res := &results.ScenarioResult{Scenario: sc, Start: cfg.Clock.Now()}
	defer func() { res.End = cfg.Clock.Now() }()
	if err := checkJudge(sc, cfg.Judge); err != nil {
		return res, err
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	run.stopRun = func(a *results.Aborted) {
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
		if err := runGroup(runCtx, sc, group, caseResults, sys, run); err != nil {
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
	stopRun   func(*results.Aborted) // ends the rest of the run after an abort
	flow      bool                   // the target runs a flow: workers iterate, not request
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
	// loopCPU is the CPU time of the busiest event loop's thread, once
	// the loops are done (see protocols.LoopJob.Busy).
	loopCPU atomic.Int64

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

// runPhase runs phase ph of case c once and measures it: its workers or
// event loops send the load while a second of its time series closes every
// tick. label tells a trial or a probe apart in progress and logs.
func runPhase(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cr *caseRun, label string) (*results.PhaseResult, error) {
	pr, res, col := newPhaseRun(cr, c, ph)
	defer pr.closeClients()
	snap := phaseStarted(cr, scenario, c, ph, label, res)

	loops := pr.loopsFor(cr, c.ID)
	// Closed-model clients are made before the clock starts, so a setup
	// problem fails the phase before any request is sent.
	if !ph.Rate.Open() && loops == nil {
		for w := 0; w < ph.Concurrency; w++ {
			if _, err := pr.addClient(); err != nil {
				return nil, err
			}
		}
	}
	// The phase's time starts now, once its workers exist: making them is
	// not load, and a deadline started earlier would cut the measured time
	// short by however long that took on a busy machine.
	cpu0 := cr.Clock.CPU()
	phaseCtx, release := pr.startClock(ctx, res, cr.MaxPhase)
	defer release()
	var sent atomic.Int64
	// The first tick is armed before any load, so that it falls a tick
	// after the phase's start however late await begins.
	ticker := cr.Clock.NewTimer(cr.Tick)
	defer ticker.Stop()
	var done <-chan struct{}
	if loops != nil {
		done = pr.startLoops(loops, parallelism(ph), &sent)
	} else {
		done = pr.startWorkers(phaseCtx, ph.Rate.Open(), parallelism(ph), &sent)
	}
	second := pr.await(done, ticker, &cr.Config, col, res, &snap)
	pr.conclude(ctx, col, res, second, done, &sent, cpu0)
	if err := pr.clientErr(); err != nil {
		return nil, err
	}
	if cr.Observer != nil {
		updateSnapshot(&snap, res, res.Elapsed, res.Succeeded, res.Elapsed, 0)
		cr.Observer.PhaseDone(snap, res)
	}
	cr.Logger.Debug().Str("case", c.ID).Str("phase", snap.Phase).Int64("requests", res.Requests).
		Int64("dropped", res.Dropped).Dur("elapsed", res.Elapsed).Bool("interrupted", res.Interrupted).Msg("phase done")
	return res, nil
}

// newPhaseRun makes the shared state of phase ph's workers, the phase's
// empty result and the collector that fills it from the workers' shards.
func newPhaseRun(cr *caseRun, c *scenarios.Case, ph *scenarios.Phase) (*phaseRun, *results.PhaseResult, *collector) {
	mix := requestMix(&c.Target)
	flow := flowOf(&c.Target) != nil
	res := newPhaseResult(ph, &c.Target, mix)
	newClient := cr.newClient
	if newClient == nil {
		newClient = NewClient
	}
	pr := &phaseRun{phase: ph, target: &c.Target, newClient: newClient, feeds: cr.feeds, stopRun: cr.stopRun,
		flow: flow, clock: cr.Clock, schedLag: results.NewHistogram(), dataEnd: make(chan struct{})}
	pr.weights = cumulativeWeights(mix)

	pr.shards = make([]*shard, max(1, min(parallelism(ph), 2*runtime.GOMAXPROCS(0))))
	for i := range pr.shards {
		pr.shards[i] = newShard(len(res.ByName), ph.Rate.Open(), flow)
		if countsStatus(&c.Target) {
			pr.shards[i].statuses = new(statusCounts)
		}
	}
	col := newCollector(res, pr.shards)
	if pr.watch = newAbortWatch(&cr.Config, c, ph); pr.watch != nil {
		col.ring = pr.watch.ring
	}
	return pr, res, col
}

// phaseStarted tells the observer and the log that phase ph of case c
// starts, and returns the progress snapshot the phase keeps up to date;
// res is the phase's result, which the collector fills on every tick.
func phaseStarted(cr *caseRun, scenario string, c *scenarios.Case, ph *scenarios.Phase, label string, res *results.PhaseResult) results.Snapshot {
	phaseName := ph.Name
	if label != "" {
		phaseName += " (" + label + ")"
	}
	snap := results.Snapshot{Scenario: scenario, Case: c.ID, Phase: phaseName, Name: ph.Name, Label: label,
		Warmup: ph.Warmup, Planned: ph.Duration, Target: ph.Requests, Result: res}
	if cr.Observer != nil {
		cr.Observer.PhaseStarted(snap)
	}
	cr.Logger.Debug().Str("case", c.ID).Str("phase", phaseName).Int("concurrency", ph.Concurrency).
		Float64("rate", ph.Rate.To).Msg("phase started")
	return snap
}

// startClock starts the phase's time and the two contexts of its load:
// sending stops at the phase's end (the returned context, whose deadline
// is maxPhase when the phase has no duration), the requests already sent
// may be answered until the graceful stop has passed too (pr.reqCtx). An
// interrupt or an abort ends both at once. release ends them.
func (pr *phaseRun) startClock(ctx context.Context, res *results.PhaseResult, maxPhase time.Duration) (context.Context, func()) {
	limit := pr.phase.Duration
	if limit <= 0 {
		limit = maxPhase
	}
	res.Start = pr.clock.Now()
	pr.start = res.Start
	pr.grace = gracefulStop(pr.phase, pr.target)
	res.GracefulStop = pr.grace
	reqCtx, cancelReqs := pr.clock.WithTimeout(ctx, limit+pr.grace)
	pr.reqCtx, pr.cancelReqs = context.WithCancel(reqCtx)
	phaseCtx, cancel := pr.clock.WithTimeout(pr.reqCtx, limit)
	phaseCtx, pr.stop = context.WithCancel(phaseCtx)
	pr.end = res.Start.Add(limit)
	pr.giveUp.Store(int64(limit + pr.grace))
	return phaseCtx, func() {
		pr.stop()
		cancel()
		pr.cancelReqs()
		cancelReqs()
	}
}

// conclude fills in the phase's result once await is done: its end, its
// last second and stalls, why it ended and what it cost the generator
// since cpu0 (its CPU time at the start).
func (pr *phaseRun) conclude(ctx context.Context, col *collector, res *results.PhaseResult, second int, done <-chan struct{}, sent *atomic.Int64, cpu0 time.Duration) {
	// The requests answered in the graceful stop are counted, so the time
	// the server took to answer them is measured time too: an overloaded
	// server's backlog, answered after the end, must not read as
	// throughput it never had. It ends when the last request did, or when
	// the rest were given up, however late this goroutine got here.
	res.End = res.Start.Add(pr.gaveUpAt(pr.clock.Since(res.Start)))
	res.Elapsed = res.End.Sub(res.Start)
	pr.finish(col, res, second)
	res.Interrupted = ctx.Err() != nil && res.Aborted == nil
	res.Ended, res.EndedDetail = pr.ended(ctx, res, sent)
	res.Generator.CPU = cpuShare(pr.clock.CPU()-cpu0, pr.clock.Since(res.Start))
	res.Generator.LoopCPU = threadShare(time.Duration(pr.loopCPU.Load()), pr.clock.Since(res.Start))
	if pr.phase.Rate.Open() {
		pr.openFigures(res, done, sent)
	}
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
	if pr.stopRun != nil {
		pr.stopRun(a)
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
