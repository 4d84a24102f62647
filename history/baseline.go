package history

import (
	"fmt"
	"math"
	"time"

	"github.com/loadgate/loadgate/history/changepoint"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// The pool a run is judged against: the latest segment of main's runs,
// at most MaxPooledRuns of them, and no comparison under MinPooledRuns.
const (
	MaxPooledRuns = 30
	MinPooledRuns = 3
)

// gatedMetrics are the metrics whose change points end main's latest
// level for the gate: a case's pool starts after the latest change of any.
var gatedMetrics = []string{"rps", "capacity", "p50", "p99", "error_rate"}

// Baseline is main's history as the baseline of a run (run
// --baseline-history): each case compares with the pooled trials of the
// runs at main's latest level, measured in the run's environment with
// the same load. It implements results.RunBaseline.
type Baseline struct {
	Store   string
	entries []*Entry
	env     Environment
	opts    changepoint.Options
	// loadOf is the digest of the judged case's load, "" when unknown.
	loadOf func(scenario, caseID string) string
}

var _ results.RunBaseline = (*Baseline)(nil)

// NewBaseline judges runs made in env against entries (oldest first,
// as Load gives them). loadOf gives the digest of a judged case's load.
func NewBaseline(store string, entries []*Entry, env Environment, o changepoint.Options, loadOf func(scenario, caseID string) string) *Baseline {
	return &Baseline{Store: store, entries: entries, env: env, opts: o, loadOf: loadOf}
}

// pool is the runs of one case a comparison pools.
type pool struct {
	runs      []*Entry
	cases     []*CaseEntry // cases[i] is the case in runs[i]
	undecided string
}

// poolOf finds the runs of the case at main's latest level; ok is false
// when main has never run the case, which is no baseline at all.
func (b *Baseline) poolOf(scenario, caseID string) (p pool, ok bool) {
	var all, sameEnv int
	want := ""
	if b.loadOf != nil {
		want = b.loadOf(scenario, caseID)
	}
	for _, e := range b.entries {
		if e.Scenario != scenario {
			continue
		}
		for i := range e.Cases {
			c := &e.Cases[i]
			if c.ID != caseID {
				continue
			}
			all++
			if e.Environment.ID() != b.env.ID() {
				continue
			}
			sameEnv++
			if want != "" && c.Load != "" && c.Load != want {
				continue
			}
			p.runs, p.cases = append(p.runs, e), append(p.cases, c)
		}
	}
	switch {
	case all == 0:
		return p, false
	case sameEnv == 0:
		p.undecided = fmt.Sprintf("main's history has %d runs of this case, none in this environment (%s)", all, b.env)
		return p, true
	case len(p.runs) == 0:
		p.undecided = fmt.Sprintf("the load changed: none of main's %d runs of this case in this environment measured this load", sameEnv)
		return p, true
	}
	p.latestLevel(b.opts)
	if n := len(p.runs); n < MinPooledRuns {
		p.undecided = fmt.Sprintf("main's latest level holds %d run(s) of this case, fewer than the %d a comparison with the history needs", n, MinPooledRuns)
	}
	return p, true
}

// latestLevel keeps the runs after the latest change point of any gated
// metric, at most MaxPooledRuns of them.
func (p *pool) latestLevel(o changepoint.Options) {
	start := 0
	for _, name := range gatedMetrics {
		s := &Series{Info: InfoOf(name)}
		var at []int // the pool's index of each point
		for i, c := range p.cases {
			if m, ok := c.Metric(name); ok {
				s.Points = append(s.Points, Point{Run: p.runs[i], Value: m.Median})
				at = append(at, i)
			}
		}
		if len(s.Points) == 0 {
			continue
		}
		if a := Analyze(s, o); len(a.Changes) > 0 {
			start = max(start, at[a.Changes[len(a.Changes)-1].Index])
		}
	}
	start = max(start, len(p.runs)-MaxPooledRuns)
	p.runs, p.cases = p.runs[start:], p.cases[start:]
}

// commits is the pool's commit range, "a1b2c3d…e4f5a6b".
func (p *pool) commits() string {
	if len(p.runs) == 0 {
		return ""
	}
	first, last := ShortCommit(p.runs[0].Commit), ShortCommit(p.runs[len(p.runs)-1].Commit)
	if first == last {
		return first
	}
	return first + "…" + last
}

// ShortCommit is the first 7 characters of a commit, "?" for none.
func ShortCommit(sha string) string {
	if sha == "" {
		return "?"
	}
	return sha[:min(7, len(sha))]
}

// Case implements assertions.Baseline. The history keeps whole cases:
// a rule narrowed to one phase compares with them only when the case
// measured that phase alone.
func (b *Baseline) Case(scenario, caseID, phase string) (results.BaselineCase, bool) {
	p, ok := b.poolOf(scenario, caseID)
	if !ok {
		return results.BaselineCase{}, false
	}
	bc := results.BaselineCase{Undecided: p.undecided}
	if phase != "" && len(p.cases) > 0 && !measuredAlone(p.cases[len(p.cases)-1], phase) {
		bc.Undecided = fmt.Sprintf("the history keeps whole cases, and this case measured more than its phase %q", phase)
	}
	bc.Stats = p.stats()
	for _, c := range p.cases {
		bc.Trials = append(bc.Trials, trialsOf(c)...)
		bc.Runs = append(bc.Runs, mediansOf(c))
	}
	return bc, true
}

// measuredAlone reports whether phase was the only phase c measured, so
// that a rule narrowed to it compares with the whole case.
func measuredAlone(c *CaseEntry, phase string) bool {
	return len(c.Phases) == 1 && c.Phases[0] == phase
}

// CaseFigures implements results.RunBaseline.
func (b *Baseline) CaseFigures(scenario, caseID string, _ *scenarios.LoadShape) *results.CaseBaseline {
	p, ok := b.poolOf(scenario, caseID)
	if !ok {
		return nil
	}
	cb := &results.CaseBaseline{File: b.Store, Runs: len(p.runs), Commits: p.commits(), Undecided: p.undecided}
	st := p.stats()
	cb.RPS, cb.P50, cb.P99, cb.ErrorRate = st.RPS, st.Latency.P50, st.Latency.P99, st.ErrorRate
	for _, c := range p.cases {
		cb.Trials += len(trialsOf(c))
	}
	return cb
}

// Info implements results.RunBaseline: the pool holds only runs of this
// environment, so the fingerprint matches unless main never ran in it.
func (b *Baseline) Info(host results.Host, version string, strict bool) *results.BaselineInfo {
	bi := &results.BaselineInfo{File: b.Store, History: true, FingerprintMatch: true, StrictEnv: strict}
	cur := EnvironmentOf(&results.Run{Host: host, LoadgateVersion: version})
	seen := map[string]bool{}
	for _, e := range b.entries {
		if e.Environment.ID() == cur.ID() {
			return bi
		}
		if id := e.Environment.ID(); !seen[id] {
			seen[id] = true
			bi.Differences = append(bi.Differences, "history: "+e.Environment.String()+"; this run: "+cur.String())
		}
	}
	bi.FingerprintMatch = len(b.entries) == 0
	return bi
}

// stats are the pool's figures as baseline.* reads them: the median over
// its runs of each run's median.
func (p *pool) stats() results.Stats {
	of := func(name string) float64 {
		var xs []float64
		for _, c := range p.cases {
			if m, ok := c.Metric(name); ok {
				xs = append(xs, m.Median)
			}
		}
		return median(xs)
	}
	var st results.Stats
	st.RPS, st.ErrorRate = of("rps"), of("error_rate")
	st.Latency.P50 = time.Duration(math.Round(of("p50")))
	st.Latency.P90 = time.Duration(math.Round(of("p90")))
	st.Latency.P99 = time.Duration(math.Round(of("p99")))
	st.Requests = int64(math.Round(of("requests")))
	if len(p.cases) > 0 {
		if _, ok := p.cases[len(p.cases)-1].Metric("capacity"); ok {
			st.Capacity = of("capacity")
			st.Search = &results.SearchResult{Capacity: st.Capacity}
		}
	}
	return st
}

// trialsOf rebuilds the trials of a case entry from its metrics' trials.
func trialsOf(c *CaseEntry) []results.Trial {
	rps, _ := c.Metric("rps")
	n := len(rps.Trials)
	at := func(name string, i int) float64 {
		m, _ := c.Metric(name)
		if i < len(m.Trials) {
			return m.Trials[i]
		}
		return m.Median
	}
	if n == 0 {
		n = 1
	}
	out := make([]results.Trial, n)
	for i := range out {
		out[i] = trialOf(func(name string) float64 { return at(name, i) })
	}
	return out
}

// mediansOf is the case's run as one trial of its medians.
func mediansOf(c *CaseEntry) results.Trial {
	return trialOf(func(name string) float64 {
		m, _ := c.Metric(name)
		return m.Median
	})
}

func trialOf(value func(metric string) float64) results.Trial {
	req := value("requests")
	return results.Trial{
		RPS: value("rps"), Capacity: value("capacity"),
		P50: time.Duration(math.Round(value("p50"))), P99: time.Duration(math.Round(value("p99"))),
		Requests: int64(math.Round(req)), Failed: int64(math.Round(value("error_rate") * req)),
		Dropped: int64(math.Round(value("dropped"))),
	}
}
