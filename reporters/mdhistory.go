package reporters

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// mdHistory writes, for a run judged with --baseline-history, one row per
// case: main's latest level, the runs and commits it pools, this run's
// figures, the change, and the verdicts that compared with main.
func mdHistory(b *bytes.Buffer, sr *results.ScenarioRun) {
	var rows []string
	for _, c := range sr.Cases {
		cb := c.Baseline
		if cb == nil || (cb.Runs == 0 && cb.Undecided == "") {
			continue
		}
		m := results.TrialMedians(c.Phases)
		level, delta := "undecided: "+mdText(cb.Undecided), "—"
		if cb.Undecided == "" {
			level = fmt.Sprintf("%s/s · p99 %s", units.FormatNumber(cb.RPS, units.Figure), units.FormatDuration(cb.P99, units.Figure))
			delta = "rps " + fmtDelta(cb.RPS, m.RPS) + ", p99 " + fmtDelta(float64(cb.P99), float64(m.P99))
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %d runs, %s | %s/s · p99 %s | %s | %s |",
			mdCode(c.ID), level, cb.Runs, mdCode(cb.Commits), units.FormatNumber(m.RPS, units.Figure),
			units.FormatDuration(m.P99, units.Figure), delta, comparisonVerdicts(c.Verdicts)))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("#### Against main's history\n\n")
	b.WriteString("main's level is the median of the run medians of the latest segment of its history (between change points, up to 30 runs); regressed() compares this run's trials with the segment's pooled trials and weighs a difference against the spread between its runs.\n\n")
	b.WriteString("| case | main's level | pooled | this run | Δ | verdicts |\n|:--|:--|:--|:--|:--|:--|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n\n")
}

// comparisonVerdicts lists the verdicts of rules that read the baseline,
// each with its icon, e.g. "✅ no throughput regression".
func comparisonVerdicts(vs []results.Verdict) string {
	var out []string
	for _, v := range vs {
		if !strings.Contains(v.Rule, "regressed(") && !strings.Contains(v.Rule, "baseline.") {
			continue
		}
		name := v.Name
		if name == "" {
			name = v.Rule
		}
		out = append(out, verdictIcon(v)+" "+mdText(name))
	}
	if len(out) == 0 {
		return "—"
	}
	return strings.Join(out, "<br>")
}
