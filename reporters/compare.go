package reporters

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
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
	Judgements []assertions.Regression
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
	var names []string
	byName := func(r *results.Run, name string) *results.ScenarioRun {
		for _, sr := range r.Scenarios {
			if sr.Name == name {
				return sr
			}
		}
		return nil
	}
	for _, r := range []*results.Run{cand, base} {
		for _, sr := range r.Scenarios {
			if !slices.Contains(names, sr.Name) {
				names = append(names, sr.Name)
			}
		}
	}
	for _, name := range names {
		sc := ScenarioComparison{Name: name}
		bs, ns := byName(base, name), byName(cand, name)
		if bs == nil || ns == nil {
			for _, x := range []struct {
				sr   *results.ScenarioRun
				only *[]string
			}{{bs, &sc.OnlyBase}, {ns, &sc.OnlyNew}} {
				if x.sr != nil {
					for _, cr := range x.sr.Cases {
						*x.only = append(*x.only, cr.ID)
					}
				}
			}
			c.Scenarios = append(c.Scenarios, sc)
			continue
		}
		for _, nc := range ns.Cases {
			bc := caseByID(bs, nc.ID)
			if bc == nil {
				sc.OnlyNew = append(sc.OnlyNew, nc.ID)
				continue
			}
			if !measured(bc) || !measured(nc) {
				sc.NotRun = append(sc.NotRun, nc.ID)
				continue
			}
			cc := CaseComparison{ID: nc.ID, Base: bc, New: nc}
			if bc.Load != nil && nc.Load != nil {
				cc.LoadDifferences = scenarios.LoadDifferences(*bc.Load, *nc.Load, "", true)
			}
			if len(cc.LoadDifferences) > 0 {
				sc.Cases = append(sc.Cases, cc)
				continue
			}
			bt, nt := results.TrialsOf(bc.Phases), results.TrialsOf(nc.Phases)
			for _, m := range CompareMetrics {
				j, err := assertions.JudgeRegression(m, bt, nt, opts.Tolerance)
				if err != nil {
					return nil, err
				}
				cc.Judgements = append(cc.Judgements, j)
			}
			if j, ok := judgeCapacity(bc, nc, opts.Tolerance); ok {
				cc.Judgements = append(cc.Judgements, j)
			}
			sc.Cases = append(sc.Cases, cc)
		}
		for _, bc := range bs.Cases {
			if caseByID(ns, bc.ID) == nil {
				sc.OnlyBase = append(sc.OnlyBase, bc.ID)
			}
		}
		c.Scenarios = append(c.Scenarios, sc)
	}
	if c.Cases() == 0 {
		return nil, fmt.Errorf("%w: no case was measured in both %s and %s (%s)",
			ErrNotComparable, opts.BaseName, opts.NewName, c.unmatched())
	}
	return c, nil
}

func measured(c *results.CaseRun) bool { return c.Error == "" && len(c.Phases) > 0 }

func caseByID(sr *results.ScenarioRun, id string) *results.CaseRun {
	for _, c := range sr.Cases {
		if c.ID == id {
			return c
		}
	}
	return nil
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

// WriteCompare writes the comparison as GitHub-flavoured Markdown: a
// headline verdict, both documents' identity and environment check, then
// per scenario and case the key figures side by side with their change
// and the regression judgements.
func WriteCompare(w io.Writer, c *Comparison) error {
	var b bytes.Buffer
	regressed, inconclusive := c.Count(regression.Regressed), c.Count(regression.Inconclusive)
	u := undecided{inconclusive: inconclusive, incomparable: c.Incomparable()}
	switch {
	case regressed > 0:
		b.WriteString("## ❌ loadgate compare: regressed")
	default:
		b.WriteString("## ✅ loadgate compare: no regression")
	}
	if u.total() > 0 {
		b.WriteString(" · ⚠ " + u.String())
	}
	b.WriteString("\n\n")
	for _, side := range []struct {
		label, name string
		run         *results.Run
	}{{"base", c.Options.BaseName, c.Base}, {"new", c.Options.NewName, c.New}} {
		fmt.Fprintf(&b, "- **%s** %s: %s\n", side.label, mdCode(side.name), runIdentity(side.run))
	}
	fmt.Fprintf(&b, "\n%s compared · tolerance %.1f%% · Mann–Whitney U on per-trial figures at α = %.2f · %d regressed, %d inconclusive, %d passed",
		plural(c.Cases()-u.incomparable, "case"), 100*c.Options.Tolerance, regression.Alpha,
		regressed, inconclusive, c.Count(regression.Pass))
	if u.incomparable > 0 {
		fmt.Fprintf(&b, " · %s not compared: the load changed", plural(u.incomparable, "case"))
	}
	b.WriteString("\n\n")
	if len(c.EnvDifferences) == 0 {
		b.WriteString("Environment: the same fingerprint (CPU model, cores, OS, architecture, runner labels, loadgate version).\n\n")
	} else {
		fmt.Fprintf(&b, "> ⚠️ **Different environments:** %s. A change may come from the machine rather than the code.\n\n",
			mdText(envSummary(c.EnvDifferences)))
	}
	for _, sc := range c.Scenarios {
		fmt.Fprintf(&b, "### %s\n\n", mdText(sc.Name))
		for _, cc := range sc.Cases {
			compareCase(&b, cc)
		}
		for _, only := range []struct {
			label string
			ids   []string
		}{{"Only in base", sc.OnlyBase}, {"Only in new", sc.OnlyNew},
			{"Not compared, as it measured nothing on one side", sc.NotRun}} {
			if len(only.ids) == 0 {
				continue
			}
			quoted := make([]string, len(only.ids))
			for i, id := range only.ids {
				quoted[i] = mdCode(id)
			}
			fmt.Fprintf(&b, "%s: %s\n\n", only.label, strings.Join(quoted, ", "))
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

// runIdentity is one line saying where a document's figures come from.
func runIdentity(r *results.Run) string {
	parts := runMeta(r)
	if r.Interrupted {
		parts = append(parts, "⏹ interrupted")
	}
	return orDash(strings.Join(parts, " · "))
}

// runMeta names a run: loadgate version, commit, machine and start time,
// whichever are known.
func runMeta(r *results.Run) []string {
	var parts []string
	if r.LoadgateVersion != "" {
		parts = append(parts, "loadgate "+mdText(r.LoadgateVersion))
	}
	if r.Commit != "" {
		c := r.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		parts = append(parts, "commit "+mdCode(c))
	}
	if h := mdHost(r.Host); h != "" {
		parts = append(parts, h)
	}
	if !r.Start.IsZero() {
		parts = append(parts, "started "+r.Start.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	return parts
}

func compareCase(b *bytes.Buffer, cc CaseComparison) {
	bs, ns := cc.Base.Stats, cc.New.Stats
	fmt.Fprintf(b, "#### %s\n\n| metric | base | new | Δ |\n|:--|--:|--:|--:|\n", mdCode(cc.ID))
	bt, nt := len(results.TrialsOf(cc.Base.Phases)), len(results.TrialsOf(cc.New.Phases))
	fmt.Fprintf(b, "| trials | %d | %d | |\n", bt, nt)
	incomparable := len(cc.LoadDifferences) > 0
	num := func(label string, x, y float64, f func(float64) string) {
		delta := fmtDelta(x, y)
		if incomparable {
			delta = "≠"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", label, f(x), f(y), delta)
	}
	count := func(f float64) string { return units.FormatCount(int64(f)) }
	dur := func(f float64) string { return units.FormatDuration(time.Duration(f), units.Figure) }
	rate := func(f float64) string { return units.FormatNumber(f, units.Figure) }
	// The figures a judgement compares are its medians, shown as such so
	// that the table's delta is the one the judgement quotes.
	medianMark := ""
	if bt > 1 || nt > 1 {
		medianMark = " (median trial)"
	}
	judged := func(label, metric string, x, y float64, f func(float64) string) {
		if j, ok := judgementOf(cc, metric); ok {
			label, x, y = label+medianMark, j.Base, j.Cand
		}
		num(label, x, y, f)
	}
	num("requests", float64(bs.Requests), float64(ns.Requests), count)
	judged("rps", "rps", bs.RPS, ns.RPS, rate)
	judged("p50", "p50", float64(bs.Latency.P50), float64(ns.Latency.P50), dur)
	num("p90", float64(bs.Latency.P90), float64(ns.Latency.P90), dur)
	judged("p99", "p99", float64(bs.Latency.P99), float64(ns.Latency.P99), dur)
	num("max", float64(bs.Latency.Max), float64(ns.Latency.Max), dur)
	judged("error rate", "error_rate", bs.ErrorRate, ns.ErrorRate, fmtPct)
	num("dropped", float64(bs.Dropped), float64(ns.Dropped), count)
	if j, ok := judgementOf(cc, "capacity"); ok {
		// The medians judged: with trials, not the last search's.
		num("capacity (rps)"+medianMark, j.Base, j.Cand, fmtRateInt)
	}
	compareFlow(num, bs, ns, dur)
	compareUsage(b, cc.Base.Server, cc.New.Server)
	if medianMark != "" && !incomparable {
		fmt.Fprintf(b, "\nmedian trial: the median of the %d vs %d trials' figures, which the judgements compare; the other rows are of all requests together.\n", bt, nt)
	}
	if incomparable {
		fmt.Fprintf(b, "\n> ≠ **Not compared: the load changed** (%s). A change of the test is not a change of the code: compare runs of the same load.\n\n",
			mdText(strings.Join(cc.LoadDifferences, ", ")))
		return
	}
	b.WriteString("\n| | judgement |\n|:-:|:--|\n")
	for _, j := range cc.Judgements {
		fmt.Fprintf(b, "| %s | %s |\n", judgementIcon(j.Status), mdText(j.Reason))
	}
	b.WriteString("\n")
}

// judgementOf is cc's judgement of metric; ok is false when none was made.
func judgementOf(cc CaseComparison, metric string) (assertions.Regression, bool) {
	for _, j := range cc.Judgements {
		if j.Metric == metric {
			return j, true
		}
	}
	return assertions.Regression{}, false
}

func judgementIcon(s regression.Status) string {
	switch s {
	case regression.Regressed:
		return "❌"
	case regression.Inconclusive:
		return "❔"
	default:
		return "✅"
	}
}

// capacitySamples are the capacities a case's search phases found, one
// per trial; nil when the case searched nothing or a search was limited
// by the generator, whose lower bound is not a figure to compare.
func capacitySamples(c *results.CaseRun) []float64 {
	var out []float64
	for _, p := range results.SearchedPhases(c.Phases) {
		if notANumber(p.Search) {
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
func judgeCapacity(base, cand *results.CaseRun, tolerance float64) (assertions.Regression, bool) {
	b, n := capacitySamples(base), capacitySamples(cand)
	if len(b) == 0 || len(n) == 0 {
		return assertions.Regression{}, false
	}
	j := regression.Judge(b, n, regression.HigherIsBetter, tolerance)
	j.Reason = "capacity " + j.Reason
	return assertions.Regression{Metric: "capacity", Judgement: j}, true
}
