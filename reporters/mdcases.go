package reporters

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// mdCaseTable lists the cases. Columns for the open model, for trials, for
// server and host usage and for the baseline appear only when some case
// needs them, so a plain closed-model sweep keeps the narrow table that
// fits a step summary.
func mdCaseTable(b *bytes.Buffer, sr *results.ScenarioRun, knees []knee, withBaseline bool) {
	cols := caseColumnsOf(sr, withBaseline)
	kneeAt := make(map[*results.CaseRun]bool)
	for _, k := range knees {
		if k.at != nil {
			kneeAt[k.at] = true
		}
	}
	b.WriteString(cols.header())
	for _, c := range sr.Cases {
		cols.writeRow(b, c, kneeAt[c])
	}
	b.WriteString("\n")
	cols.writeLegend(b, sr)
	mdCaseWarnings(b, sr)
}

// caseColumns are the optional columns of the case table, each shown when
// some case of the scenario has a figure for it.
type caseColumns struct {
	open     bool // requested rate and dropped arrivals: a case ran the open model
	trials   bool // the spread of the trials' rps
	searched bool // the capacity a search found
	server   bool // the monitored server's CPU and RSS
	cost     bool // the server's CPU per request
	host     bool // the generator host's load
	baseline bool // the change against --baseline
	kinds    bool // failures by kind: some request failed
}

func caseColumnsOf(sr *results.ScenarioRun, withBaseline bool) caseColumns {
	cols := caseColumns{baseline: withBaseline}
	for _, c := range sr.Cases {
		cols.searched = cols.searched || results.CaseSearch(c) != nil
		cols.kinds = cols.kinds || c.Stats.Failed > 0
		cols.open = cols.open || openModel(c.Phases)
		cols.trials = cols.trials || c.Stats.Trials != nil
	}
	cols.server, cols.host = usageColumns(sr)
	cols.cost = costColumn(sr)
	return cols
}

// header is the table's heading row and alignment row.
func (cols caseColumns) header() string {
	head, sep := "| case | requests |", "|:--|--:|"
	if cols.open {
		head, sep = head+" rate |", sep+"--:|"
	}
	head, sep = head+" rps |", sep+"--:|"
	if cols.trials {
		head, sep = head+" rps spread (min–max) |", sep+"--:|"
	}
	if cols.searched {
		head, sep = head+" capacity (rps) |", sep+"--:|"
	}
	head, sep = head+" mean | p50 | p90 | p95 | p99 | max | errors |", sep+"--:|--:|--:|--:|--:|--:|--:|"
	if cols.open {
		head, sep = head+" dropped |", sep+"--:|"
	}
	if cols.server {
		head, sep = head+" server CPU mean / max |", sep+"--:|"
	}
	if cols.cost {
		head, sep = head+" server CPU per request (µs) |", sep+"--:|"
	}
	if cols.server {
		head, sep = head+" server RSS max (MiB) |", sep+"--:|"
	}
	if cols.host {
		head, sep = head+" host load1 max |", sep+"--:|"
	}
	if cols.baseline {
		head, sep = head+" Δ vs baseline |", sep+"--:|"
	}
	if cols.kinds {
		head, sep = head+" failed by kind |", sep+":--|"
	}
	return head + "\n" + sep + "\n"
}

// writeRow writes c's row; a case at the knee of a sweep is marked.
func (cols caseColumns) writeRow(b *bytes.Buffer, c *results.CaseRun, knee bool) {
	st := c.Stats
	name := mdCode(c.ID)
	if knee {
		name += " 📈 knee"
	}
	fmt.Fprintf(b, "| %s | %s |", name, units.FormatCount(st.Requests))
	if cols.open {
		fmt.Fprintf(b, " %s |", orDash(strings.Join(requestedRates(c.Phases, groupedNum), ", ")))
	}
	if st.Trials != nil {
		fmt.Fprintf(b, " %s ± %.1f%% |", units.FormatNumber(st.RPS, units.Figure), st.Trials.RPSCV*100)
	} else {
		fmt.Fprintf(b, " %s |", units.FormatNumber(st.RPS, units.Figure))
	}
	if cols.trials {
		spread := "—"
		if st.Trials != nil {
			spread = units.FormatNumber(st.Trials.RPSMin, units.Figure) + "–" + units.FormatNumber(st.Trials.RPSMax, units.Figure)
		}
		fmt.Fprintf(b, " %s |", spread)
	}
	if cols.searched {
		fmt.Fprintf(b, " %s |", mdText(capacityCell(c)))
	}
	errs := units.FormatCount(st.Failed)
	if st.Requests > 0 {
		errs += " (" + fmtPct(st.ErrorRate) + ")"
	}
	fmt.Fprintf(b, " %s | %s |", strings.Join(latencyCells(c), " | "), errs)
	if cols.open {
		dropped := "—"
		if openModel(c.Phases) {
			dropped = units.FormatCount(st.Dropped)
		}
		fmt.Fprintf(b, " %s |", dropped)
	}
	cpu, rss, load := usageCells(c.Server)
	if cols.server {
		fmt.Fprintf(b, " %s |", cpu)
	}
	if cols.cost {
		fmt.Fprintf(b, " %s |", costCell(c.Server))
	}
	if cols.server {
		fmt.Fprintf(b, " %s |", rss)
	}
	if cols.host {
		fmt.Fprintf(b, " %s |", load)
	}
	if cols.baseline {
		fmt.Fprintf(b, " %s |", baselineDelta(c))
	}
	if cols.kinds {
		fmt.Fprintf(b, " %s |", errorKinds(st.Errors))
	}
	b.WriteString("\n")
}

// latencyCells are the mean, p50, p90, p95, p99 and max of c. Latency
// describes successes; with none there is no figure, and a 0 would read as
// infinitely fast.
func latencyCells(c *results.CaseRun) []string {
	if c.Stats.Succeeded == 0 {
		return []string{"—", "—", "—", "—", "—", "—"}
	}
	l := c.Stats.Latency
	return []string{units.FormatDuration(l.Mean, units.Figure), units.FormatDuration(l.P50, units.Figure), units.FormatDuration(l.P90, units.Figure),
		units.FormatDuration(l.P95, units.Figure), units.FormatDuration(l.P99, units.Figure), units.FormatDuration(l.Max, units.Figure)}
}

// writeLegend explains the columns whose figures are not what their
// heading alone suggests.
func (cols caseColumns) writeLegend(b *bytes.Buffer, sr *results.ScenarioRun) {
	if cols.trials {
		b.WriteString("rps with trials: the median trial ± the coefficient of variation (stddev / mean) of the trials' rps; rules see the median.\n\n")
	}
	if cols.baseline && cols.trials {
		b.WriteString("Δ vs baseline: the median trial's rps and p99 against the baseline's, the figures regressed() compares; the p99 column is of all requests together.\n\n")
	}
	if cols.server {
		b.WriteString("Server CPU in percent of one core (200% = two cores busy), over the case's measured phases; RSS summed over the server's process tree" + ramNote(sr) + promNote(sr) + ".\n\n")
	}
}

// mdServersTable writes the servers side by side, when some case watched
// more than one.
func mdServersTable(b *bytes.Buffer, sr *results.ScenarioRun) {
	t := serversTableOf(sr)
	if t == nil {
		return
	}
	b.WriteString("**Servers side by side**\n\n|")
	for _, c := range t.Columns {
		b.WriteString(" " + mdText(c) + " |")
	}
	b.WriteString("\n|:--|" + strings.Repeat("--:|", len(t.Columns)-1) + "\n")
	for _, r := range t.Rows {
		b.WriteString("| " + mdCode(r.Case) + " |")
		for _, c := range r.Cells {
			b.WriteString(" " + mdText(c) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nEach server's CPU in percent of one core, over the case's measured phases; RSS summed over its process tree" + ramNote(sr) + promNote(sr) + ".\n\n")
	for _, c := range sr.Cases {
		for _, n := range namedUsageNotes(c) {
			fmt.Fprintf(b, "> ⚠️ %s\n\n", mdText(n))
		}
	}
}

// mdCaseWarnings writes, per case, what makes its figures doubtful: usage
// that was not sampled, a load that changed against the baseline, arrivals
// that were dropped.
func mdCaseWarnings(b *bytes.Buffer, sr *results.ScenarioRun) {
	for _, c := range sr.Cases {
		if note := usageNote(c); note != "" {
			fmt.Fprintf(b, "> ⚠️ %s\n\n", mdText(note))
		}
		if note := loadChangedNote(c); note != "" {
			fmt.Fprintf(b, "> ≠ %s: %s\n\n", mdCode(c.ID), mdText(note))
		}
		if c.Stats.Dropped > 0 {
			fmt.Fprintf(b, "> ⚠️ %s dropped %s arrivals, which fell due and were never sent: %s.\n\n",
				mdCode(c.ID), units.FormatCount(c.Stats.Dropped), mdText(droppedCause(c.Stats)))
		}
	}
}
