package reporters

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/runner"
)

// abPercentiles are the rows of ab's "Percentage of the requests served
// within a certain time" table, plus 99.9 which matters at today's rates.
var abPercentiles = []float64{50, 66, 75, 80, 90, 95, 98, 99, 99.9, 100}

// Summary prints the result of one scenario the way ab prints a run, so
// that people used to ab find every figure where they expect it: per case a
// one-liner for each warm-up phase, then a block for the measured phases
// taken together, then a table of the threshold verdicts.
func (c *Console) Summary(res *runner.ScenarioResult, verdicts []assertions.Verdict) {
	var b bytes.Buffer
	name := ""
	if res != nil && res.Scenario != nil {
		name = res.Scenario.Name
	}
	if res != nil {
		for _, cr := range res.Cases {
			summaryCase(&b, name, cr, c.opts.Quiet)
		}
		if res.Interrupted {
			b.WriteString("Interrupted: the run was stopped early; figures are partial.\n\n")
		}
	}
	if len(verdicts) > 0 {
		summaryThresholds(&b, verdicts)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLive()
	c.write(b.String())
}

func summaryCase(b *bytes.Buffer, scenario string, cr *runner.CaseResult, quiet bool) {
	title := cr.ID
	if scenario != "" {
		title = scenario + " / " + cr.ID
	}
	measured := cr.Measured("")
	if quiet {
		line := title + ": "
		switch {
		case cr.Err != "":
			line += "could not run: " + oneLine(cr.Err)
		case len(measured) == 0:
			line += "no measured phase"
		default:
			st := runner.Summarize(measured)
			line += fmt.Sprintf("%s requests, %s rps, %s failed, p99 %s",
				group(st.Requests), fmtRate(st.RPS), group(st.Failed), fmtDur(st.Latency.P99))
		}
		b.WriteString(line + "\n")
		return
	}

	fmt.Fprintf(b, "%s\n%s\n", title, strings.Repeat("=", len([]rune(title))))
	if cr.Err != "" {
		fmt.Fprintf(b, "Could not run: %s\n", oneLine(cr.Err))
	}
	for _, p := range cr.Phases {
		if p.Warmup || len(measured) > 1 {
			label := p.Name
			if p.Warmup {
				label += " (warm-up)"
			}
			fmt.Fprintf(b, "%s: %s\n", label, phaseFigures(p))
		}
	}
	if len(measured) == 0 {
		b.WriteString("No measured phase completed.\n\n")
		return
	}
	b.WriteString("\n")
	abBlock(b, measured)
}

// abBlock prints ab's report for the measured phases taken together.
func abBlock(b *bytes.Buffer, phases []*runner.PhaseResult) {
	st := runner.Summarize(phases)
	conn := runner.NewHistogram()
	var levels []int
	seen := make(map[int]bool)
	interrupted := false
	for _, p := range phases {
		conn.Merge(p.Connect)
		if !seen[p.Concurrency] {
			seen[p.Concurrency] = true
			levels = append(levels, p.Concurrency)
		}
		interrupted = interrupted || p.Interrupted
	}
	sort.Ints(levels)
	lv := make([]string, len(levels))
	for i, l := range levels {
		lv[i] = strconv.Itoa(l)
	}

	row := func(label, format string, args ...any) {
		fmt.Fprintf(b, "%-24s"+format+"\n", append([]any{label + ":"}, args...)...)
	}
	row("Concurrency Level", "%s", strings.Join(lv, ", "))
	taken := fmt.Sprintf("%.3f seconds", st.Elapsed.Seconds())
	if interrupted {
		taken += " (interrupted)"
	}
	row("Time taken for tests", "%s", taken)
	row("Complete requests", "%d", st.Requests)
	row("Failed requests", "%d", st.Failed)
	if st.Failed > 0 {
		var kinds []string
		st.Errors.Each(func(kind string, n int64) {
			kinds = append(kinds, fmt.Sprintf("%s: %d", strings.ToUpper(kind[:1])+kind[1:], n))
		})
		fmt.Fprintf(b, "   (%s)\n", strings.Join(kinds, ", "))
	}
	row("Total transferred", "%d bytes", st.BytesReceived)
	row("Total sent", "%d bytes", st.BytesSent)
	row("Requests per second", "%.2f [#/sec] (mean)", st.RPS)
	row("Time per request", "%.3f [ms] (mean)", ms(st.Latency.Mean))
	across := 0.0
	if st.Requests > 0 {
		across = ms(st.Elapsed) / float64(st.Requests)
	}
	row("Time per request", "%.3f [ms] (mean, across all concurrent requests)", across)
	row("Transfer rate", "%.2f [Kbytes/sec] received", st.TransferRate/1024)
	sent := 0.0
	if secs := st.Elapsed.Seconds(); secs > 0 {
		sent = float64(st.BytesSent) / secs / 1024
	}
	fmt.Fprintf(b, "%-24s%.2f kb/s sent\n", "", sent)

	// ab splits Total into Processing and Waiting per request; connections
	// here are timed apart from requests (one per connection, not per
	// request with keep-alive), so only the two honest rows are shown.
	b.WriteString("\nConnection Times (ms)\n")
	fmt.Fprintf(b, "%-9s %8s %8s %8s %8s %8s\n", "", "min", "mean", "[+/-sd]", "median", "max")
	dist := func(label string, d runner.Distribution, note string) {
		fmt.Fprintf(b, "%-9s %8.2f %8.2f %8.2f %8.2f %8.2f%s\n",
			label, ms(d.Min), ms(d.Mean), ms(d.StdDev), ms(d.P50), ms(d.Max), note)
	}
	dist("Connect:", st.Connect, " ("+plural(int(conn.Count()), "new connection")+")")
	dist("Total:", st.Latency, "")
	b.WriteString("\nPercentage of the requests served within a certain time (ms)\n")
	for _, q := range abPercentiles {
		label := strconv.FormatFloat(q, 'f', -1, 64) + "%"
		v := st.Latency.Max
		if q < 100 && st.LatencyHist != nil {
			v = st.LatencyHist.Quantile(q)
		}
		line := fmt.Sprintf("%6s %9.2f", label, ms(v))
		if q == 100 {
			line += " (longest request)"
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
}

// summaryThresholds prints one row per verdict, failures pointing at the
// rule's line in the scenario file.
func summaryThresholds(b *bytes.Buffer, vs []assertions.Verdict) {
	b.WriteString("Thresholds\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, v := range vs {
		rule := v.Rule
		if v.Name != "" && v.Name != v.Rule {
			rule = v.Name + ": " + v.Rule
		}
		if v.Severity != "" && v.Severity != "fail" {
			rule += " (" + string(v.Severity) + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n",
			consoleStatus(v), oneLine(v.Case), oneLine(rule), oneLine(verdictActual(v)), where(v.Pos))
	}
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
	fmt.Fprintf(b, "thresholds: %s\n\n", tally(vs))
}

// consoleStatus spells the status out: symbols alone get lost in a log.
func consoleStatus(v assertions.Verdict) string {
	switch classify(v) {
	case classFail:
		if v.Status == assertions.StatusError {
			return "✗ ERROR"
		}
		return "✗ FAIL"
	case classWarn:
		return "! WARN"
	case classSkip:
		return "- skip"
	default:
		return "✓ pass"
	}
}
