package reporters

import (
	"bytes"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// isFlow reports whether a case ran a flow: its steps then get rows of
// their own in every report, and its iterations a line.
func isFlow(st results.Stats) bool { return st.Iterations != nil }

// stepLatency renders a step's or an iteration's percentile, or a dash
// when nothing succeeded: a 0 would read as infinitely fast.
func stepLatency(succeeded int64, d func() string) string {
	if succeeded == 0 {
		return "—"
	}
	return d()
}

// consoleFlow prints a flow case's steps, one row each, and its
// iterations, after the ab-style block that covers all steps together.
func consoleFlow(b *bytes.Buffer, st results.Stats, steps []results.NamedStats) {
	b.WriteString("Flow steps (setup is not measured; rps and latency of succeeded requests)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "step\trequests\trps\tp50 (ms)\tp99 (ms)\tfailed\t\n")
	var kinds []string
	for _, s := range steps {
		p50 := stepLatency(s.Succeeded, func() string { return strconv.FormatFloat(ms(s.Latency.P50), 'f', 2, 64) })
		p99 := stepLatency(s.Succeeded, func() string { return strconv.FormatFloat(ms(s.Latency.P99), 'f', 2, 64) })
		// Escaped here, not only when printed, so the columns line up
		// with what the terminal shows.
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%s\t%s\t%d\t\n", ConsoleText(oneLine(s.Name)), s.Requests, s.RPS, p50, p99, s.Failed)
		if k := errorKinds(s.Errors); k != "" {
			kinds = append(kinds, "   "+oneLine(s.Name)+" failed: "+k+"\n")
		}
	}
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
	for _, k := range kinds {
		b.WriteString(k)
	}
	it := st.Iterations
	row := func(label, format string, args ...any) {
		fmt.Fprintf(b, "%-24s"+format+"\n", append([]any{label + ":"}, args...)...)
	}
	b.WriteString("\n")
	row("Complete iterations", "%d (%d failed: ended by a failed step)", it.Iterations, it.Failed)
	row("Iterations per second", "%.2f [#/sec] (succeeded)", it.RPS)
	if it.Succeeded > 0 {
		row("Time per iteration", "p50 %.2f, p99 %.2f, max %.2f [ms] (succeeded, think times excluded)",
			ms(it.Latency.P50), ms(it.Latency.P99), ms(it.Latency.Max))
	}
	b.WriteString("\n")
}

// quietFlow is the quiet summary's addition for a flow case.
func quietFlow(st results.Stats) string {
	it := st.Iterations
	s := ", " + units.FormatCount(it.Iterations) + " iterations (" + units.FormatNumber(it.RPS, units.Figure) + "/s)"
	if it.Succeeded > 0 {
		s += ", iteration p99 " + units.FormatDuration(it.Latency.P99, units.Figure)
	}
	return s
}

// mdFlows writes, for every flow case of the scenario, its iterations and a
// table of its steps.
func mdFlows(b *bytes.Buffer, sr *results.ScenarioRun) {
	for _, c := range sr.Cases {
		if !isFlow(c.Stats) {
			continue
		}
		fmt.Fprintf(b, "#### Flow %s\n\n", mdCode(c.ID))
		b.WriteString(flowIterationsLine(c.Stats.Iterations) + "\n\n")
		b.WriteString("| step | requests | rps | p50 | p99 | errors |\n|:--|--:|--:|--:|--:|:--|\n")
		for _, s := range flowStepRows(c.ByName) {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", mdCode(s.Name), s.Requests, s.RPS, s.P50, s.P99, s.Errors)
		}
		b.WriteString("\n")
	}
}

// junitFlowProperties are a flow case's key figures: its iterations, and
// per step requests, rps, p50, p99 and error rate, named
// "<case>.step.<step>.<figure>".
func junitFlowProperties(id string, c *results.CaseRun, add func(name, value string)) {
	it := c.Stats.Iterations
	if it == nil {
		return
	}
	add(id+".iterations", strconv.FormatInt(it.Iterations, 10))
	add(id+".iterations_failed", strconv.FormatInt(it.Failed, 10))
	add(id+".iterations_rps", strconv.FormatFloat(it.RPS, 'f', 2, 64))
	add(id+".iteration.p50_ms", strconv.FormatFloat(ms(it.Latency.P50), 'f', 3, 64))
	add(id+".iteration.p99_ms", strconv.FormatFloat(ms(it.Latency.P99), 'f', 3, 64))
	for _, s := range c.ByName {
		step := id + ".step." + oneLine(s.Name)
		add(step+".requests", strconv.FormatInt(s.Requests, 10))
		add(step+".rps", strconv.FormatFloat(s.RPS, 'f', 2, 64))
		add(step+".p50_ms", strconv.FormatFloat(ms(s.Latency.P50), 'f', 3, 64))
		add(step+".p99_ms", strconv.FormatFloat(ms(s.Latency.P99), 'f', 3, 64))
		add(step+".error_rate", strconv.FormatFloat(s.ErrorRate, 'f', 6, 64))
	}
}

// compareFlow adds a flow's iteration rows to a compare table when both
// sides ran the flow.
func compareFlow(num func(label string, x, y float64, f func(float64) string), base, cand results.Stats, dur func(float64) string) {
	if !isFlow(base) || !isFlow(cand) {
		return
	}
	bi, ni := base.Iterations, cand.Iterations
	num("iterations_rps", bi.RPS, ni.RPS, func(f float64) string { return units.FormatNumber(f, units.Figure) })
	num("iteration p99", float64(bi.Latency.P99), float64(ni.Latency.P99), dur)
}
