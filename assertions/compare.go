package assertions

import (
	"fmt"
	"slices"

	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// CompareMetrics are the metrics `loadgate compare` judges for every case:
// the ones a rank test can compare trial by trial.
var CompareMetrics = []string{"rps", "p50", "p99", "error_rate"}

// CompareOptions configure Compare.
type CompareOptions struct {
	// Tolerance is how much worse a metric may get before it can count as
	// a regression, as a fraction: 0.05 = 5 %.
	Tolerance float64
	// BaseName and NewName label the two documents, usually their paths.
	BaseName, NewName string
}

// Comparison is one results document judged against another: the figures
// side by side and a regression judgement per metric of every case the two
// have in common (same scenario name, same case ID).
type Comparison struct {
	Base, New *results.Run
	Options   CompareOptions
	// EnvDifferences lists how the environment fingerprints differ; empty
	// when the two were measured in the same environment.
	EnvDifferences []string
	Scenarios      []ScenarioComparison
}

// ScenarioComparison is one scenario of a Comparison.
type ScenarioComparison struct {
	Name  string
	Cases []CaseComparison
	// OnlyBase and OnlyNew list case IDs found on one side only; a
	// scenario found on one side only has all its cases there.
	OnlyBase, OnlyNew []string
	// NotRun lists cases found on both sides that could not be carried
	// out, or measured nothing, on at least one: there is nothing to judge.
	NotRun []string
}

// CaseComparison is one case found in both documents.
type CaseComparison struct {
	ID        string
	Base, New *results.CaseRun
	// Judgements holds one entry per CompareMetrics name, in that order,
	// then "capacity" when both sides found a capacity; none when the two
	// cases' loads differ.
	Judgements []Regression
	// LoadDifferences lists how the base case's load differs from the new
	// one's ("concurrency 4 → 1"): such a case is shown, not judged.
	LoadDifferences []string
}

// Incomparable counts the matched cases whose loads differ.
func (c *Comparison) Incomparable() int {
	n := 0
	for _, sc := range c.Scenarios {
		for _, cc := range sc.Cases {
			if len(cc.LoadDifferences) > 0 {
				n++
			}
		}
	}
	return n
}

// Count returns how many judgements have status s.
func (c *Comparison) Count(s regression.Status) int {
	n := 0
	for _, sc := range c.Scenarios {
		for _, cc := range sc.Cases {
			for _, j := range cc.Judgements {
				if j.Status == s {
					n++
				}
			}
		}
	}
	return n
}

// Cases is how many cases were matched and judged.
func (c *Comparison) Cases() int {
	n := 0
	for _, sc := range c.Scenarios {
		n += len(sc.Cases)
	}
	return n
}

// Compare judges cand against base. The documents are matched scenario by
// scenario and case by case; each matched case is judged on CompareMetrics
// with the trials of all its measured phases. It refuses, rather than
// report "no regression" over nothing, two documents that are not
// comparable (see comparable).
func Compare(base, cand *results.Run, opts CompareOptions) (*Comparison, error) {
	if err := comparable(base, cand, opts); err != nil {
		return nil, err
	}
	c := &Comparison{
		Base: base, New: cand, Options: opts,
		EnvDifferences: results.FingerprintDiff(base.Fingerprint(), cand.Fingerprint(), "base", "new"),
	}
	// The new document's scenarios first, in its order: it is the one
	// under review.
	var names []string
	for _, name := range append(scenarioNames(cand), scenarioNames(base)...) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		sc, err := compareScenario(name, scenarioByName(base, name), scenarioByName(cand, name), opts.Tolerance)
		if err != nil {
			return nil, err
		}
		c.Scenarios = append(c.Scenarios, sc)
	}
	if c.Cases() == 0 {
		return nil, fmt.Errorf("%w: no case was measured in both %s and %s (%s)",
			ErrNotComparable, opts.BaseName, opts.NewName, c.unmatched())
	}
	return c, nil
}

// compareScenario matches the cases of one scenario by ID, in the new
// document's order; bs or ns is nil when the scenario is on one side only.
func compareScenario(name string, bs, ns *results.ScenarioRun, tolerance float64) (ScenarioComparison, error) {
	sc := ScenarioComparison{Name: name}
	if bs == nil || ns == nil {
		sc.OnlyBase, sc.OnlyNew = caseIDs(bs), caseIDs(ns)
		return sc, nil
	}
	for _, nc := range ns.Cases {
		bc := caseByID(bs, nc.ID)
		switch {
		case bc == nil:
			sc.OnlyNew = append(sc.OnlyNew, nc.ID)
		case !measured(bc) || !measured(nc):
			sc.NotRun = append(sc.NotRun, nc.ID)
		default:
			cc, err := compareCase(bc, nc, tolerance)
			if err != nil {
				return sc, err
			}
			sc.Cases = append(sc.Cases, cc)
		}
	}
	for _, bc := range bs.Cases {
		if caseByID(ns, bc.ID) == nil {
			sc.OnlyBase = append(sc.OnlyBase, bc.ID)
		}
	}
	return sc, nil
}

// compareCase judges one matched case on CompareMetrics and capacity,
// unless its load changed: a change of the test is not one of the code.
func compareCase(bc, nc *results.CaseRun, tolerance float64) (CaseComparison, error) {
	cc := CaseComparison{ID: nc.ID, Base: bc, New: nc}
	if bc.Load != nil && nc.Load != nil {
		cc.LoadDifferences = scenarios.LoadDifferences(*bc.Load, *nc.Load, "", true)
	}
	if len(cc.LoadDifferences) > 0 {
		return cc, nil
	}
	bt, nt := results.TrialsOf(bc.Phases), results.TrialsOf(nc.Phases)
	for _, m := range CompareMetrics {
		j, err := JudgeRegression(m, bt, nil, nt, tolerance)
		if err != nil {
			return cc, err
		}
		cc.Judgements = append(cc.Judgements, j)
	}
	if j, ok := judgeCapacity(bc, nc, tolerance); ok {
		cc.Judgements = append(cc.Judgements, j)
	}
	return cc, nil
}

func measured(c *results.CaseRun) bool { return c.Error == "" && len(c.Phases) > 0 }

func scenarioByName(r *results.Run, name string) *results.ScenarioRun {
	for _, sr := range r.Scenarios {
		if sr.Name == name {
			return sr
		}
	}
	return nil
}

func caseByID(sr *results.ScenarioRun, id string) *results.CaseRun {
	for _, c := range sr.Cases {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// caseIDs lists sr's case IDs; none when sr is nil.
func caseIDs(sr *results.ScenarioRun) []string {
	if sr == nil {
		return nil
	}
	var ids []string
	for _, c := range sr.Cases {
		ids = append(ids, c.ID)
	}
	return ids
}

// capacitySamples are the capacities a case's search phases found, one
// per trial; nil when the case searched nothing or a search was limited
// by the generator, whose lower bound is not a figure to compare.
func capacitySamples(c *results.CaseRun) []float64 {
	var out []float64
	for _, p := range results.SearchedPhases(c.Phases) {
		if p.Search.NoCapacity() {
			return nil
		}
		if len(p.Trials) == 0 {
			out = append(out, p.Search.Capacity)
			continue
		}
		for _, t := range p.Trials {
			out = append(out, t.Capacity)
		}
	}
	return out
}

// judgeCapacity judges regressed("capacity", tolerance), higher being
// better, when both cases found a capacity; ok is false otherwise.
func judgeCapacity(base, cand *results.CaseRun, tolerance float64) (Regression, bool) {
	b, n := capacitySamples(base), capacitySamples(cand)
	if len(b) == 0 || len(n) == 0 {
		return Regression{}, false
	}
	j := regression.Judge(b, n, regression.HigherIsBetter, tolerance)
	j.Reason = "capacity " + j.Reason
	return Regression{Metric: "capacity", Judgement: j}, true
}
