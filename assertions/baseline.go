package assertions

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
	"github.com/loadgate/loadgate/units"
)

// Baseline finds the case a rule compares with in an earlier run. It is
// declared here, where it is used, so that this package need not know the
// results file format; reporters implements it over results.json.
type Baseline interface {
	// Case returns the baseline's case of the named scenario with the
	// given case ID (runner.CaseResult.ID, which encodes the target and
	// the matrix values), narrowed to one measured phase when phase is not
	// empty. ok is false when the baseline has no such case or phase.
	Case(scenario, caseID, phase string) (c BaselineCase, ok bool)
}

// BaselineCase is what a rule sees of a baseline case: its figures, and one
// entry per trial for regressed().
type BaselineCase struct {
	Stats  runner.Stats
	Trials []runner.Trial
	// Server is the case's server usage; nil when none was sampled, which
	// skips the rules that read baseline.server or baseline.host.
	Server *sut.Usage
	// Load is the fingerprint of the load the case measured; nil when it
	// is unknown (a document written before loads had one), which
	// compares as if alike.
	Load *scenarios.LoadShape
}

// NewBaselineCase summarises measured phases for a Baseline to return.
func NewBaselineCase(phases []*runner.PhaseResult) BaselineCase {
	return BaselineCase{Stats: summarize(phases), Trials: TrialsOf(phases)}
}

// TrialsOf lists the trials of phases in order. A phase that ran once
// counts as one trial, so a run without trials: N still compares, though a
// single sample can never be significant.
func TrialsOf(phases []*runner.PhaseResult) []runner.Trial {
	var out []runner.Trial
	for _, p := range phases {
		if len(p.Trials) > 0 {
			out = append(out, p.Trials...)
			continue
		}
		t := runner.Trial{Requests: p.Requests, Failed: p.Failed, Dropped: p.Dropped, Elapsed: p.Elapsed}
		if p.Search != nil {
			t.Capacity = p.Search.Capacity
		}
		if s := p.Elapsed.Seconds(); s > 0 {
			t.RPS = float64(p.Requests) / s
		}
		if p.Latency != nil {
			t.P50, t.P99 = p.Latency.Quantile(50), p.Latency.Quantile(99)
		}
		out = append(out, t)
	}
	return out
}

// Medians are a case's figures as regressed() compares them: the median
// of its trials (TrialsOf), so that a report's delta is the verdict's.
// With one trial they are that trial's, which are all its requests'.
type Medians struct {
	Trials    int
	RPS       float64
	P50, P99  time.Duration
	ErrorRate float64
}

// TrialMedians gives the Medians of phases.
func TrialMedians(phases []*runner.PhaseResult) Medians {
	trials := TrialsOf(phases)
	of := func(name string) float64 {
		m, _ := trialMetricNamed(name)
		xs := make([]float64, len(trials))
		for i, t := range trials {
			xs[i] = m.of(t)
		}
		if len(xs) == 0 {
			return 0
		}
		return regression.Median(xs)
	}
	return Medians{
		Trials: len(trials), RPS: of("rps"),
		P50: time.Duration(math.Round(of("p50"))), P99: time.Duration(math.Round(of("p99"))),
		ErrorRate: of("error_rate"),
	}
}

// trialMetric is a figure that every trial records on its own, which is
// what a rank test needs: regressed() compares nothing else. Percentiles
// other than p50 and p99 exist only for the trials merged, so they cannot
// be compared honestly and are refused.
type trialMetric struct {
	name     string
	dir      regression.Direction
	of       func(runner.Trial) float64
	duration bool // the value is nanoseconds
}

var trialMetrics = []trialMetric{
	{"rps", regression.HigherIsBetter, func(t runner.Trial) float64 { return t.RPS }, false},
	{"p50", regression.LowerIsBetter, func(t runner.Trial) float64 { return float64(t.P50) }, true},
	{"p99", regression.LowerIsBetter, func(t runner.Trial) float64 { return float64(t.P99) }, true},
	{"latency.p50", regression.LowerIsBetter, func(t runner.Trial) float64 { return float64(t.P50) }, true},
	{"latency.p99", regression.LowerIsBetter, func(t runner.Trial) float64 { return float64(t.P99) }, true},
	{"error_rate", regression.LowerIsBetter, func(t runner.Trial) float64 {
		if t.Requests == 0 {
			return 0
		}
		return float64(t.Failed) / float64(t.Requests)
	}, false},
	{"dropped", regression.LowerIsBetter, func(t runner.Trial) float64 { return float64(t.Dropped) }, false},
	// capacity is each trial's search result; rules reading it are skipped
	// on cases without a search phase, so the zeros of others never compare.
	{"capacity", regression.HigherIsBetter, func(t runner.Trial) float64 { return t.Capacity }, false},
}

// RegressionMetrics are the metric names regressed() accepts.
func RegressionMetrics() []string {
	names := make([]string, len(trialMetrics))
	for i, m := range trialMetrics {
		names[i] = m.name
	}
	return names
}

func trialMetricNamed(name string) (trialMetric, bool) {
	for _, m := range trialMetrics {
		if m.name == name {
			return m, true
		}
	}
	return trialMetric{}, false
}

// Regression is the judgement of one metric between a baseline and a
// candidate, as regressed() and `loadgate compare` make it.
type Regression struct {
	Metric string
	regression.Judgement
	// Duration is set when Base and Cand are nanoseconds.
	Duration bool
}

// Medians renders the two medians compared, e.g. "p99 = 1.3ms (baseline 1.2ms)".
func (r Regression) Medians() string {
	return fmt.Sprintf("%s = %s (baseline %s)", r.Metric, r.format(r.Cand), r.format(r.Base))
}

func (r Regression) format(v float64) string {
	if r.Duration {
		return units.FormatDuration(time.Duration(math.Round(v)), units.Actual)
	}
	return units.FormatNumber(v, units.Actual)
}

// JudgeRegression compares metric between the trials of a baseline and a
// candidate with regression.Judge. Its Reason names the metric, e.g. "rps
// 12.3% lower, beyond the 5.0% tolerance and significant (p = 0.008, 5 vs 5
// trials)". An unknown metric or a tolerance that is not a fraction ≥ 0 is
// an error.
func JudgeRegression(metric string, base, cand []runner.Trial, tolerance float64) (Regression, error) {
	m, ok := trialMetricNamed(metric)
	if !ok {
		return Regression{}, fmt.Errorf("regressed: unknown metric %q (known: %s)", metric, strings.Join(RegressionMetrics(), ", "))
	}
	if !(tolerance >= 0) || math.IsInf(tolerance, 1) {
		return Regression{}, fmt.Errorf("regressed(%q, %v): the tolerance must be a fraction of at least 0, e.g. 5%%", metric, tolerance)
	}
	sample := func(ts []runner.Trial) []float64 {
		out := make([]float64, len(ts))
		for i, t := range ts {
			out[i] = m.of(t)
		}
		return out
	}
	j := regression.Judge(sample(base), sample(cand), m.dir, tolerance)
	j.Reason = metric + " " + j.Reason
	return Regression{Metric: metric, Judgement: j, Duration: m.duration}, nil
}

// regressKey identifies one call of regressed() within a rule.
type regressKey struct {
	metric    string
	tolerance float64
}

// regressState is what regressed() works on for one case and phase
// narrowing. Env.Regressed is bound to it, so rules stay compiled once
// while each evaluation records the judgements it consulted.
type regressState struct {
	base, cand []runner.Trial
	// usage is the baseline case's server usage, nil when none was sampled.
	usage *sut.Usage
	// flow: the baseline case ran a flow, so its iteration figures exist.
	flow bool
	// stats are the baseline case's figures, whose search a rule reading
	// baseline.capacity needs.
	stats  runner.Stats
	judged map[regressKey]Regression // cache: a judgement never changes
	// consulted lists the judgements the current rule asked for, first use
	// first, across every evaluation of that rule.
	consulted []regressKey
	// forced answers inconclusive judgements during an evaluation; found
	// lists the inconclusive ones that evaluation met.
	forced map[regressKey]bool
	found  []regressKey
	// loadDiffs lists how the baseline's load differs from the
	// candidate's; when it is not empty every judgement is undecided, so
	// a rule stands only where it holds whatever the comparison says.
	loadDiffs []string
}

func newRegressState(base, cand []runner.Trial) *regressState {
	return &regressState{base: base, cand: cand, judged: map[regressKey]Regression{}}
}

// regressed is Env.Regressed.
func (s *regressState) regressed(metric string, tolerance float64) (bool, error) {
	k := regressKey{metric, tolerance}
	r, ok := s.judged[k]
	if !ok {
		var err error
		if r, err = JudgeRegression(metric, s.base, s.cand, tolerance); err != nil {
			return false, err
		}
		s.judged[k] = r
	}
	if !slices.Contains(s.consulted, k) {
		s.consulted = append(s.consulted, k)
	}
	switch {
	case len(s.loadDiffs) > 0:
	case r.Status == regression.Regressed:
		return true, nil
	case r.Status == regression.Pass:
		return false, nil
	}
	if !slices.Contains(s.found, k) {
		s.found = append(s.found, k)
	}
	return s.forced[k], nil
}

// startRule forgets what the previous rule consulted.
func (s *regressState) startRule() {
	s.consulted, s.forced, s.found = nil, nil, nil
}

// force answers the undecided judgements with the bits of mask for the
// next evaluation.
func (s *regressState) force(undecided []regressKey, mask int) {
	s.forced = make(map[regressKey]bool, len(undecided))
	for i, k := range undecided {
		s.forced[k] = mask&(1<<i) != 0
	}
	s.found = s.found[:0]
}

// judgements lists what the current rule consulted, in first-use order.
func (s *regressState) judgements() []Regression {
	out := make([]Regression, len(s.consulted))
	for i, k := range s.consulted {
		out[i] = s.judged[k]
	}
	return out
}
