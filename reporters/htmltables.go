package reporters

import (
	"fmt"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// The tables of report.html that summary.md and the console have too:
// the steps of a flow, the responses by status code and the trials of a
// phase. Their rows come from tablerows.go, the same as the other
// reports'; here they only get the page's shape.

// htmlFlow is a flow case: its iterations and a row per step.
type htmlFlow struct {
	Case, Iterations string
	Steps            []flowStepRow
}

// htmlFlowsOf lists the flow cases of sr, in case order.
func htmlFlowsOf(sr *results.ScenarioRun) []htmlFlow {
	var out []htmlFlow
	for _, c := range sr.Cases {
		if isFlow(c.Stats) {
			out = append(out, htmlFlow{Case: c.ID, Iterations: flowIterationsLine(c.Stats.Iterations), Steps: flowStepRows(c.ByName)})
		}
	}
	return out
}

// htmlTrials is the table of a case's trials, with their spread and why
// adaptive trials stopped.
type htmlTrials struct {
	Columns []string
	Rows    [][]string
	Spread  string
	Stops   []string
}

// htmlTrialsOf tabulates the trials of c's phases; nil when none ran
// trials. Dropped arrivals and capacities get a column only when a trial
// has them: an open-model phase, a capacity search.
func htmlTrialsOf(c *results.CaseRun) *htmlTrials {
	rows := trialRows(c.Phases)
	if len(rows) == 0 {
		return nil
	}
	open, searched := false, false
	for _, p := range c.Phases {
		open = open || (len(p.Trials) > 0 && p.Rate != nil)
	}
	for _, r := range rows {
		open = open || r.Dropped > 0
		searched = searched || r.Capacity > 0
	}
	ht := &htmlTrials{Columns: []string{"trial", "requests", "failed", "rps (succeeded/s)", "p50", "p99"}}
	if open {
		ht.Columns = append(ht.Columns, "dropped")
	}
	if searched {
		ht.Columns = append(ht.Columns, "capacity (rps)")
	}
	for _, r := range rows {
		ok := r.Requests - r.Failed
		cells := []string{r.Label, units.FormatCount(r.Requests), units.FormatCount(r.Failed), units.FormatNumber(r.RPS, units.Figure),
			stepLatency(ok, func() string { return units.FormatDuration(r.P50, units.Figure) }),
			stepLatency(ok, func() string { return units.FormatDuration(r.P99, units.Figure) })}
		if open {
			cells = append(cells, units.FormatCount(r.Dropped))
		}
		if searched {
			cells = append(cells, fmtRateInt(r.Capacity))
		}
		ht.Rows = append(ht.Rows, cells)
	}
	if sp := c.Stats.Trials; sp != nil {
		ht.Spread = fmtSpread(sp) + "; rules see the median."
	}
	for _, p := range c.Phases {
		if s := trialsStopText(p); s != "" {
			ht.Stops = append(ht.Stops, s)
		}
	}
	return ht
}

// trialsStopText says why adaptive trials stopped where they did (the
// phase's TrialsStop); "" for a fixed number of trials.
func trialsStopText(p *results.PhaseResult) string {
	var why string
	switch p.TrialsStop {
	case "":
		return ""
	case results.TrialsDecisive:
		why = "every regressed() rule was decisive (pass or regressed)"
	case results.TrialsMax:
		why = "the maximum ran, and a regressed() rule was still inconclusive"
	case results.TrialsNoJudge:
		why = "no baseline to judge regressed() against, so only the minimum ran"
	case results.TrialsInterrupted:
		why = "the run was stopped"
	default:
		why = p.TrialsStop
	}
	return fmt.Sprintf("phase %s: adaptive trials stopped after %s: %s", p.Name, plural(len(p.Trials), "trial"), why)
}
