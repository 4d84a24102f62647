package assertions

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// Baseline finds the case a rule compares with in an earlier run. It is
// declared here, where it is used, so that tests can judge against cases
// made in memory; results.Baseline implements it over results.json files.
type Baseline interface {
	// Case returns the baseline's case of the named scenario with the
	// given case ID (results.CaseResult.ID, which encodes the target and
	// the matrix values), narrowed to one measured phase when phase is not
	// empty. ok is false when the baseline has no such case or phase.
	Case(scenario, caseID, phase string) (c results.BaselineCase, ok bool)
}

var _ Baseline = (*results.Baseline)(nil)

// trialMetric is a figure that every trial records on its own, which is
// what a rank test needs: regressed() compares nothing else. Percentiles
// other than p50 and p99 exist only for the trials merged, so they cannot
// be compared honestly and are refused.
type trialMetric struct {
	name     string
	dir      regression.Direction
	of       func(results.Trial) float64
	duration bool // the value is nanoseconds
}

var trialMetrics = []trialMetric{
	{"rps", regression.HigherIsBetter, func(t results.Trial) float64 { return t.RPS }, false},
	{"p50", regression.LowerIsBetter, func(t results.Trial) float64 { return float64(t.P50) }, true},
	{"p99", regression.LowerIsBetter, func(t results.Trial) float64 { return float64(t.P99) }, true},
	{"latency.p50", regression.LowerIsBetter, func(t results.Trial) float64 { return float64(t.P50) }, true},
	{"latency.p99", regression.LowerIsBetter, func(t results.Trial) float64 { return float64(t.P99) }, true},
	{"error_rate", regression.LowerIsBetter, results.Trial.ErrorRate, false},
	{"dropped", regression.LowerIsBetter, func(t results.Trial) float64 { return float64(t.Dropped) }, false},
	// capacity is each trial's search result; rules reading it are skipped
	// on cases without a search phase, so the zeros of others never compare.
	{"capacity", regression.HigherIsBetter, func(t results.Trial) float64 { return t.Capacity }, false},
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
// candidate with regression.Judge, and, when the baseline is several runs
// (baseRuns: one entry per run, as results.BaselineCase.Runs), weighs a
// regression against their run-to-run spread. Its Reason names the
// metric, e.g. "rps 12.3% lower, beyond the 5.0% tolerance and significant
// (p = 0.008, 5 vs 5 trials)". An unknown metric or a tolerance that is
// not a fraction ≥ 0 is an error.
func JudgeRegression(metric string, base, baseRuns, cand []results.Trial, tolerance float64) (Regression, error) {
	m, ok := trialMetricNamed(metric)
	if !ok {
		return Regression{}, fmt.Errorf("regressed: unknown metric %q (known: %s)", metric, strings.Join(RegressionMetrics(), ", "))
	}
	if !(tolerance >= 0) || math.IsInf(tolerance, 1) {
		return Regression{}, fmt.Errorf("regressed(%q, %v): the tolerance must be a fraction of at least 0, e.g. 5%%", metric, tolerance)
	}
	sample := func(ts []results.Trial) []float64 {
		out := make([]float64, len(ts))
		for i, t := range ts {
			out[i] = m.of(t)
		}
		return out
	}
	c := sample(cand)
	j := regression.Judge(sample(base), c, m.dir, tolerance).AgainstRuns(sample(baseRuns), c)
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
	base, cand []results.Trial
	// baseRuns are the baseline's runs when it is several (the history).
	baseRuns []results.Trial
	// usage is the baseline case's server usage, nil when none was sampled.
	usage *results.Usage
	// flow: the baseline case ran a flow, so its iteration figures exist.
	flow bool
	// stats are the baseline case's figures, whose search a rule reading
	// baseline.capacity needs.
	stats  results.Stats
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
	// undecided, when set, is why no comparison decides (BaselineCase.
	// Undecided): every judgement is then left open as with loadDiffs,
	// and a rule hanging on one is inconclusive for that reason.
	undecided string
}

func newRegressState(base, cand []results.Trial) *regressState {
	return &regressState{base: base, cand: cand, judged: map[regressKey]Regression{}}
}

// regressed is Env.Regressed.
func (s *regressState) regressed(metric string, tolerance float64) (bool, error) {
	k := regressKey{metric, tolerance}
	r, ok := s.judged[k]
	if !ok {
		var err error
		if r, err = JudgeRegression(metric, s.base, s.baseRuns, s.cand, tolerance); err != nil {
			return false, err
		}
		s.judged[k] = r
	}
	if !slices.Contains(s.consulted, k) {
		s.consulted = append(s.consulted, k)
	}
	switch {
	case len(s.loadDiffs) > 0 || s.undecided != "":
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
