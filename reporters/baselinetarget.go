package reporters

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// abPair is a case of a target judged against its baseline_target (SPEC §6,
// same-job A/B) with the reference case and the verdicts that compared them.
type abPair struct {
	cand, ref *results.CaseRun // ref is nil when the reference target has no such case
	target    string           // the baseline_target
	verdicts  []results.Verdict
}

// abPairs finds the same-job comparisons of a scenario. Results documents
// do not record baseline_target, but every verdict of a rule that compared
// with one names it, which is all a report needs: a candidate with no such
// rule made no judgement to show.
func abPairs(sr *results.ScenarioRun) []abPair {
	var out []abPair
	for _, c := range sr.Cases {
		p := abPair{cand: c}
		for _, v := range c.Verdicts {
			if v.BaselineTarget != "" {
				p.target = v.BaselineTarget
				p.verdicts = append(p.verdicts, v)
			}
		}
		if len(p.verdicts) == 0 {
			continue
		}
		label := matrixLabel(c.Matrix)
		for _, o := range sr.Cases {
			if o.Target == p.target && matrixLabel(o.Matrix) == label {
				p.ref = o
				break
			}
		}
		out = append(out, p)
	}
	return out
}

// mdABVerdicts writes the verdict table of same-job A/B comparisons: per
// candidate target a line with its verdicts tallied, then per case both
// sides' figures and each comparing rule's judgement.
func mdABVerdicts(b *bytes.Buffer, sr *results.ScenarioRun) {
	pairs := abPairs(sr)
	if len(pairs) == 0 {
		return
	}
	b.WriteString("#### A/B verdicts\n\n")
	var order []string
	byTarget := map[string][]results.Verdict{}
	against := map[string]string{}
	for _, p := range pairs {
		t := p.cand.Target
		if _, seen := byTarget[t]; !seen {
			order = append(order, t)
		}
		byTarget[t] = append(byTarget[t], p.verdicts...)
		against[t] = p.target
	}
	for _, t := range order {
		vs := byTarget[t]
		fmt.Fprintf(b, "- %s %s against %s: %s\n", worstIcon(vs), mdCode(t), mdCode(against[t]), tally(vs))
	}
	b.WriteString("\nEach case against the baseline target's case of the same matrix values in this run; figures read this target vs the baseline target (change), as the verdicts compare them: with trials, the median trial's.\n\n")

	server, _ := usageColumns(sr)
	head, sep := "| case | baseline case | rps | p99 |", "|:--|:--|--:|--:|"
	if server {
		head, sep = head+" server CPU mean | server RSS max (MiB) |", sep+"--:|--:|"
	}
	b.WriteString(head + " verdicts |\n" + sep + ":--|\n")
	for _, p := range pairs {
		fmt.Fprintf(b, "| %s |", mdCode(p.cand.ID))
		if p.ref == nil {
			fmt.Fprintf(b, " — (%s has no such case) | %s | %s |", mdCode(p.target),
				units.FormatNumber(p.cand.Stats.RPS, units.Figure), units.FormatDuration(p.cand.Stats.Latency.P99, units.Figure))
			if server {
				b.WriteString(" — | — |")
			}
		} else {
			rps, p99 := abFigures(p.cand, p.ref)
			fmt.Fprintf(b, " %s | %s | %s |", mdCode(p.ref.ID), rps, p99)
			if server {
				cu, ru := p.cand.Server, p.ref.Server
				cpu, rss := "—", "—"
				if serverSampled(cu) && serverSampled(ru) {
					cpu = versus(cu.CPUMean, ru.CPUMean, fmtCPU)
					rss = versus(float64(cu.RSSMax), float64(ru.RSSMax), func(f float64) string { return units.FormatMiB(int64(f)) })
				}
				fmt.Fprintf(b, " %s | %s |", cpu, rss)
			}
		}
		lines := make([]string, len(p.verdicts))
		for i, v := range p.verdicts {
			name := mdCode(v.Rule)
			if v.Name != "" && v.Name != v.Rule {
				name = mdText(v.Name)
			}
			detail := v.Reason
			if detail == "" {
				detail = v.Actual
			}
			lines[i] = verdictIcon(v) + " " + name + ": " + mdText(detail)
		}
		b.WriteString(" " + strings.Join(lines, "<br>") + " |\n")
	}
	b.WriteString("\n")
}

// abFigures are the rps and p99 of a same-job pair as its regressed()
// verdicts compare them: the median trial's of each side, so that the
// table's change is the one the verdicts quote.
func abFigures(cand, ref *results.CaseRun) (rps, p99 string) {
	c, r := results.TrialMedians(cand.Phases), results.TrialMedians(ref.Phases)
	rate := func(f float64) string { return units.FormatNumber(f, units.Figure) }
	return versus(c.RPS, r.RPS, rate),
		versus(float64(c.P99), float64(r.P99), func(f float64) string { return units.FormatDuration(time.Duration(f), units.Figure) })
}

// versus renders "cand vs ref (change)".
func versus(cand, ref float64, f func(float64) string) string {
	return f(cand) + " vs " + f(ref) + " (" + fmtDelta(ref, cand) + ")"
}

// worstIcon is the icon of the verdict that counts most against the run.
func worstIcon(vs []results.Verdict) string {
	t := tally(vs)
	switch {
	case t[classFail] > 0:
		return "❌"
	case t[classInconclusive] > 0:
		return "❔"
	case t[classIncomparable] > 0:
		return "≠"
	case t[classWarn] > 0:
		return "⚠️"
	case t[classNotJudged] > 0:
		return "⚠"
	case t[classPass] > 0:
		return "✅"
	default:
		return "⏭"
	}
}
