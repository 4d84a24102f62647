package reporters

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// WriteCompare writes the comparison as GitHub-flavoured Markdown: a
// headline verdict, both documents' identity and environment check, then
// per scenario and case the key figures side by side with their change
// and the regression judgements.
func WriteCompare(w io.Writer, c *assertions.Comparison) error {
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

func compareCase(b *bytes.Buffer, cc assertions.CaseComparison) {
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
	compareServers(b, cc.Base.Servers, cc.New.Servers)
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
func judgementOf(cc assertions.CaseComparison, metric string) (assertions.Regression, bool) {
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
