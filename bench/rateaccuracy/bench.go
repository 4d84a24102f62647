package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/loadgate/loadgate/bench/internal/host"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
)

// bench is one run of the program against one server.
type bench struct {
	o         options
	url       string
	serverPID int // the child server's pid; -1 when it is not ours
	out       io.Writer
	pinned    string // how the server and the generator share the cores, for the header
}

// measurement is one measured phase with the CPU figures around it.
type measurement struct {
	p      *results.PhaseResult
	others float64       // share of the machine used by other processes; -1 unknown
	own    time.Duration // the generator's CPU time during the run
	wall   time.Duration
}

// busyReason says why m cannot judge loadgate, or "".
func (b *bench) busyReason(m measurement) string {
	if m.others > b.o.busy {
		return fmt.Sprintf("other processes used %.0f%% of the CPU", 100*m.others)
	}
	return ""
}

// run measures the closed-model maximum, then each open-model rate, and
// returns the exit code of the verdicts.
func (b *bench) run(ctx context.Context) (int, error) {
	fmt.Fprintf(b.out, "target %s, %d CPUs, GOMAXPROCS %d, %s, load average %s\n", b.url, runtime.NumCPU(), runtime.GOMAXPROCS(0), b.pinned, loadAvg())
	closed, closedBusy, err := b.closedMaximum(ctx)
	if err != nil {
		return exitError, err
	}
	maxRPS := rps(closed.p)
	if maxRPS <= 0 {
		return exitError, fmt.Errorf("the closed-model phase completed no request")
	}
	b.openHeader()
	stop, err := b.startProfiles()
	if err != nil {
		return exitError, err
	}
	defer stop()
	failed, notJudged := 0, 0
	for _, rate := range b.rates(maxRPS) {
		judged, passed, err := b.openRate(ctx, rate, rate/maxRPS, closedBusy)
		if err != nil {
			return exitError, err
		}
		switch {
		case !judged:
			notJudged++
		case !passed:
			failed++
		}
	}
	return b.conclude(failed, notJudged), nil
}

// closedMaximum measures the closed model's rate, the maximum the open
// rates are shares of, again while the machine is busy and attempts are
// left; busy says why the last measurement is doubtful, "" when it is not.
func (b *bench) closedMaximum(ctx context.Context) (closed measurement, busy string, err error) {
	o := b.o
	for attempt := 1; ; attempt++ {
		m, err := b.measure(ctx, scenarios.Phase{Name: "closed", Concurrency: o.conns, Duration: o.duration})
		if err != nil {
			return measurement{}, "", err
		}
		closed, busy = m, b.busyReason(m)
		fmt.Fprintf(b.out, "closed-model maximum, %d keep-alive connections, %v: %.0f rps (generator CPU %.0f%% of a core, %.1f µs/request; latency p50 %s, p99 %s)%s\n",
			o.conns, o.duration, rps(m.p), 100*m.own.Seconds()/m.wall.Seconds(), usPerRequest(m), ms(m.p.Latency.Quantile(50)), ms(m.p.Latency.Quantile(99)), note(busy))
		if busy == "" || attempt >= o.attempts || ctx.Err() != nil {
			return closed, busy, nil
		}
	}
}

// openHeader states the open model's bounds and heads its table.
func (b *bench) openHeader() {
	o := b.o
	fmt.Fprintf(b.out, "\nopen model, %v per rate after %v of warm-up, max_in_flight %d; bounds: send error p50 < %v, p99 < %v, rate within %.1f%%\n\n",
		o.duration, o.warmup, o.maxInFlight, o.p50, o.p99, 100*o.rateError)
	fmt.Fprintln(b.out, "| share of max | requested rps | achieved rps | rate error | dropped | send error p50 | p99 | max | latency p50 | p99 | generator CPU | µs/request | verdict |")
	fmt.Fprintln(b.out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
}

// startProfiles starts the trace and the CPU profile that -trace and
// -cpuprofile ask for, which cover the open-model rates only; stop ends
// whichever started.
func (b *bench) startProfiles() (stop func(), err error) {
	stopTrace, stopProfile := func() {}, func() {}
	if b.o.trace != "" {
		if stopTrace, err = startTrace(b.o.trace); err != nil {
			return nil, err
		}
	}
	if b.o.cpuProfile != "" {
		if stopProfile, err = startCPUProfile(b.o.cpuProfile); err != nil {
			stopTrace()
			return nil, err
		}
	}
	return func() { stopProfile(); stopTrace() }, nil
}

// rates are the open-model rates to measure: -rates as given, else the
// -shares of the closed-model maximum.
func (b *bench) rates(maxRPS float64) []float64 {
	if b.o.rates != nil {
		return b.o.rates
	}
	var rates []float64
	for _, share := range b.o.shares {
		rates = append(rates, math.Round(share*maxRPS))
	}
	return rates
}

// openRate measures the open model at rate, again while the machine is
// busy and attempts are left, and writes a row per measurement. A rate
// measured on a busy machine, or against a maximum measured on one, is not
// judged: the machine, not loadgate, may have missed it.
func (b *bench) openRate(ctx context.Context, rate, share float64, closedBusy string) (judged, passed bool, err error) {
	o := b.o
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return false, false, ctx.Err()
		}
		m, err := b.measure(ctx, scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: rate, To: rate},
			Duration: o.duration, MaxInFlight: o.maxInFlight})
		if err != nil {
			return false, false, err
		}
		busy := b.busyReason(m)
		if busy == "" && closedBusy != "" {
			busy = "the closed-model maximum was measured on a busy machine"
		}
		if busy != "" && attempt < o.attempts {
			b.row(share, rate, m, fmt.Sprintf("machine busy (%s): measured again (%d/%d)", busy, attempt, o.attempts))
			continue
		}
		verdict, ok := b.judge(m, rate, busy)
		b.row(share, rate, m, verdict)
		return busy == "", ok, nil
	}
}

// conclude writes the run's last line and picks its exit code: a failed
// rate fails it, else one not judged leaves it undecided.
func (b *bench) conclude(failed, notJudged int) int {
	switch {
	case failed > 0:
		fmt.Fprintf(b.out, "\n%d rate(s) failed.\n", failed)
		return exitFail
	case notJudged > 0:
		fmt.Fprintf(b.out, "\nmachine too busy: %d rate(s) not judged (exit %d).\n", notJudged, exitNotJudged)
		return exitNotJudged
	}
	fmt.Fprintln(b.out, "\nevery rate passed.")
	return exitPass
}

// judge gives the verdict of an open-model measurement at rate.
func (b *bench) judge(m measurement, rate float64, busy string) (string, bool) {
	p := m.p
	var why []string
	if e := math.Abs(rps(p)-rate) / rate; e > b.o.rateError {
		why = append(why, fmt.Sprintf("rate off by %.2f%%", 100*e))
	}
	if q := p.SendLag.Quantile(50); q >= b.o.p50 {
		why = append(why, "send error p50 "+us(q))
	}
	if q := p.SendLag.Quantile(99); q >= b.o.p99 {
		why = append(why, "send error p99 "+us(q))
	}
	if p.Failed > 0 {
		why = append(why, fmt.Sprintf("%d failed requests", p.Failed))
	}
	switch {
	case busy != "":
		return "⚠️ machine too busy: not judged (" + busy + ")", true
	case len(why) > 0:
		return "❌ FAIL: " + fmt.Sprint(why), false
	}
	return "✅ pass", true
}

func (b *bench) row(share, rate float64, m measurement, verdict string) {
	p := m.p
	got := rps(p)
	fmt.Fprintf(b.out, "| %.0f%% | %.0f | %.1f | %+.2f%% | %d | %s | %s | %s | %s | %s | %.0f%% | %.1f | %s |\n",
		100*share, rate, got, 100*(got-rate)/rate, p.Dropped,
		us(p.SendLag.Quantile(50)), us(p.SendLag.Quantile(99)), us(p.SendLag.Max()),
		ms(p.Latency.Quantile(50)), ms(p.Latency.Quantile(99)),
		100*m.own.Seconds()/m.wall.Seconds(), usPerRequest(m), verdict)
}

// measure runs ph, after a warm-up phase like it, against the target and
// returns the measured phase with the CPU used meanwhile by the generator
// and by everything else on the machine.
func (b *bench) measure(ctx context.Context, ph scenarios.Phase) (measurement, error) {
	ph.Trials = 1
	ph.GracefulStop = scenarios.DefaultGracefulStop // as a scenario's phase has by default
	tg := scenarios.Target{Name: "target", HTTP: &scenarios.HTTPTarget{
		Requests:  []scenarios.HTTPRequest{{Method: "GET", URL: b.url, Weight: 1}},
		Keepalive: true, Timeout: 5 * time.Second, MaxBody: 10 << 20,
		Expect: scenarios.Expect{Length: -1},
	}}
	phases := []scenarios.Phase{ph}
	if b.o.warmup > 0 {
		w := ph
		w.Name, w.Warmup, w.Duration = "warm-up", true, b.o.warmup
		phases = []scenarios.Phase{w, ph}
	}
	sc := &scenarios.Scenario{Name: "rateaccuracy", Targets: []scenarios.Target{tg},
		Cases: []scenarios.Case{{ID: "target", Target: tg, Phases: phases}}}
	// The CPU figures cover the measured phase only: the observer marks
	// its start.
	obs := &phaseMark{serverPID: b.serverPID}
	res, err := runner.Run(ctx, sc, runner.Config{Observer: obs})
	if err != nil {
		return measurement{}, fmt.Errorf("%s phase: %w", ph.Name, err)
	}
	if len(res.Cases) == 0 || len(res.Cases[0].Phases) == 0 {
		return measurement{}, fmt.Errorf("%s phase: no result", ph.Name)
	}
	end := obs.sample()
	m := measurement{p: res.Cases[0].Phases[len(res.Cases[0].Phases)-1], others: -1,
		own: end.own - obs.start.own, wall: end.at.Sub(obs.start.at)}
	if obs.start.hostOK && end.hostOK && obs.start.serverOK && end.serverOK {
		ours := m.own + end.server - obs.start.server
		m.others = end.host.OthersShare(obs.start.host, ours, m.wall)
	}
	return m, nil
}

// cpuSample is the CPU counters at one instant.
type cpuSample struct {
	at       time.Time
	own      time.Duration
	server   time.Duration
	host     host.CPU
	hostOK   bool
	serverOK bool
}

// phaseMark takes a CPU sample when the measured (non-warm-up) phase
// starts.
type phaseMark struct {
	serverPID int // the child server, sampled too; -1: none
	start     cpuSample
}

func (o *phaseMark) PhaseStarted(s results.Snapshot) {
	if !s.Warmup {
		o.start = o.sample()
	}
}
func (*phaseMark) Progress(results.Snapshot)                        {}
func (*phaseMark) PhaseDone(results.Snapshot, *results.PhaseResult) {}

func (o *phaseMark) sample() cpuSample {
	var clock runner.WallClock
	s := cpuSample{at: clock.Now(), own: clock.CPU(), serverOK: true}
	s.host, s.hostOK = host.ReadCPU()
	if o.serverPID > 0 {
		s.server, s.serverOK = host.ProcCPU(o.serverPID)
	}
	return s
}

func rps(p *results.PhaseResult) float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Requests) / p.Elapsed.Seconds()
}

func usPerRequest(m measurement) float64 {
	if m.p.Requests == 0 {
		return 0
	}
	return float64(m.own.Microseconds()) / float64(m.p.Requests)
}

func note(busy string) string {
	if busy == "" {
		return ""
	}
	return " — machine busy: " + busy
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }
func us(d time.Duration) string { return fmt.Sprintf("%dµs", d.Microseconds()) }

// loadAvg is /proc/loadavg's first three figures, "?" where unknown.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	var a, b5, c string
	if _, err := fmt.Sscan(string(b), &a, &b5, &c); err != nil {
		return "?"
	}
	return a + " " + b5 + " " + c
}

// startTrace writes a runtime/trace to path until stop is called.
func startTrace(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-trace: %w", err)
	}
	if err := trace.Start(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("-trace: %w", err)
	}
	return func() { trace.Stop(); _ = f.Close() }, nil
}

// startCPUProfile writes a CPU profile to path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}
