package reporters

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// abPercentiles are the rows of ab's "Percentage of the requests served
// within a certain time" table, plus 99.9 which matters at today's rates.
var abPercentiles = []float64{50, 66, 75, 80, 90, 95, 98, 99, 99.9, 100}

// Summary prints the result of one scenario the way ab prints a run, so
// that people used to ab find every figure where they expect it: per case a
// one-liner for each warm-up phase, then a block for the measured phases
// taken together with, when a server was monitored, a line of its CPU and
// memory, then a table of the threshold verdicts.
func (c *Console) Summary(res *results.ScenarioResult, verdicts []results.Verdict) {
	var b bytes.Buffer
	if res != nil {
		for _, cr := range res.Cases {
			summaryCase(&b, res.Scenario, cr, c.opts.Quiet)
		}
		if res.Interrupted {
			b.WriteString(interruptedConsole)
		}
		if a := results.AbortedIn(res); a != nil {
			b.WriteString(consoleAborted(a))
		}
		for _, cr := range res.Cases {
			consoleInvalid(&b, cr)
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

func summaryCase(b *bytes.Buffer, sc *scenarios.Scenario, cr *results.CaseResult, quiet bool) {
	title := cr.ID
	if sc != nil && sc.Name != "" {
		title = sc.Name + " / " + cr.ID
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
			st := results.Summarize(measured)
			line += units.FormatCount(st.Requests) + " requests, " + units.FormatNumber(st.RPS, units.Figure) + " rps"
			if st.Trials != nil {
				line += fmt.Sprintf(" (median of %d trials, CV %.1f%%)", st.Trials.N, st.Trials.RPSCV*100)
			}
			line += ", " + units.FormatCount(st.Failed) + " failed"
			if openModel(measured) {
				line += ", " + units.FormatCount(st.Dropped) + " dropped"
			}
			line += ", p99 " + units.FormatDuration(st.Latency.P99, units.Figure)
			if isFlow(st) {
				line += quietFlow(st)
			}
			line += quietCapacity(measured)
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
	consoleNotes(b, cr.Phases)
	if len(measured) == 0 {
		b.WriteString("No measured phase completed.\n\n")
		return
	}
	b.WriteString("\n")
	abBlock(b, measured, maxInFlight(sc, cr.ID, measured))
	if st := results.Summarize(measured); isFlow(st) {
		consoleFlow(b, st, results.NamedStatsOf(measured))
	}
	consoleSearch(b, results.SearchSpecs(sc, cr.ID), measured)
	consoleUsage(b, cr)
}

// maxInFlight looks up the max_in_flight caps of a case's open-model
// phases in the scenario, since results do not carry them; nil when the
// scenario is not at hand (a results file re-rendered later).
func maxInFlight(sc *scenarios.Scenario, caseID string, phases []*results.PhaseResult) []string {
	if sc == nil {
		return nil
	}
	for i := range sc.Cases {
		c := &sc.Cases[i]
		if c.ID != caseID {
			continue
		}
		var out []string
		for _, p := range phases {
			if p.Rate == nil {
				continue
			}
			for _, sp := range c.Phases {
				if sp.Name == p.Name && sp.MaxInFlight > 0 && !slices.Contains(out, strconv.Itoa(sp.MaxInFlight)) {
					out = append(out, strconv.Itoa(sp.MaxInFlight))
				}
			}
		}
		return out
	}
	return nil
}

// abBlock prints ab's report for the measured phases taken together, with
// the open model's rate, drops and send lag where ab has only concurrency.
func abBlock(b *bytes.Buffer, phases []*results.PhaseResult, caps []string) {
	st := results.Summarize(phases)
	open := openModel(phases)
	if lv := concurrencyLevels(phases); len(lv) > 0 {
		abRow(b, "Concurrency Level", "%s", strings.Join(lv, ", "))
	}
	if open {
		abRow(b, "Rate", "%s requested, %.1f/s sent, %.1f/s succeeded", strings.Join(requestedRates(phases, plainNum), ", "), st.AttemptedRPS, st.RPS)
		if len(caps) > 0 {
			abRow(b, "Max in flight", "%s", strings.Join(caps, ", "))
		}
	}
	abCounts(b, st, slices.ContainsFunc(phases, func(p *results.PhaseResult) bool { return p.Interrupted }))
	if open {
		dropped := strconv.FormatInt(st.Dropped, 10)
		if st.Dropped > 0 {
			dropped += " (due but never sent: " + droppedCause(st) + ")"
		}
		abRow(b, "Dropped", "%s", dropped)
		abRow(b, "Send lag (ms)", "p50 %.2f, p99 %.2f, max %.2f", ms(st.SendLag.P50), ms(st.SendLag.P99), ms(st.SendLag.Max))
	}
	abRates(b, st)

	conn := results.NewHistogram()
	for _, p := range phases {
		conn.Merge(p.Connect)
	}
	abTimes(b, st, int(conn.Count()))
	if st.Trials != nil {
		trialsBlock(b, phases, st.Trials)
	}
}

// abRow prints one "Label:   value" line of ab's report.
func abRow(b *bytes.Buffer, label, format string, args ...any) {
	fmt.Fprintf(b, "%-24s"+format+"\n", append([]any{label + ":"}, args...)...)
}

// concurrencyLevels are the distinct worker counts of the closed-model
// phases, ascending.
func concurrencyLevels(phases []*results.PhaseResult) []string {
	var levels []int
	for _, p := range phases {
		// An open-model or search phase has no workers; its 0 is not a level.
		if p.Rate == nil && p.Search == nil && !slices.Contains(levels, p.Concurrency) {
			levels = append(levels, p.Concurrency)
		}
	}
	sort.Ints(levels)
	lv := make([]string, len(levels))
	for i, l := range levels {
		lv[i] = strconv.Itoa(l)
	}
	return lv
}

// abCounts prints how long the run took and what became of its requests:
// failed ones by kind, with samples, and responses by status.
func abCounts(b *bytes.Buffer, st results.Stats, interrupted bool) {
	taken := fmt.Sprintf("%.3f seconds", st.Elapsed.Seconds())
	if interrupted {
		taken += " (interrupted)"
	}
	abRow(b, "Time taken for tests", "%s", taken)
	abRow(b, "Complete requests", "%d", st.Requests)
	abRow(b, "Failed requests", "%d", st.Failed)
	if st.Failed > 0 {
		var kinds []string
		st.Errors.Each(func(kind string, n int64) {
			if kind == "grpc" {
				kinds = append(kinds, fmt.Sprintf("gRPC: %d (%s)", n, grpcCodes(st.Errors)))
				return
			}
			kinds = append(kinds, fmt.Sprintf("%s: %d", strings.ToUpper(kind[:1])+kind[1:], n))
		})
		fmt.Fprintf(b, "   (%s)\n", strings.Join(kinds, ", "))
		consoleErrorSamples(b, st)
	}
	st.EachStatus(func(code string, n int64) { abRow(b, "Status "+code, "%d", n) })
	if n := st.Non2xx(); n > 0 {
		abRow(b, "Non-2xx responses", "%d", n)
	}
}

// abRates prints the bytes moved and the rates: requests per second and
// ab's two times per request, then the transfer rates.
func abRates(b *bytes.Buffer, st results.Stats) {
	abRow(b, "Total transferred", "%d bytes", st.BytesReceived)
	abRow(b, "Total sent", "%d bytes", st.BytesSent)
	if st.Trials != nil {
		abRow(b, "Requests per second", "%.2f [#/sec] (succeeded; median of %d trials)", st.RPS, st.Trials.N)
	} else {
		abRow(b, "Requests per second", "%.2f [#/sec] (succeeded, mean)", st.RPS)
	}
	if st.Failed > 0 {
		abRow(b, "Attempted per second", "%.2f [#/sec] (succeeded + failed)", st.AttemptedRPS)
	}
	abRow(b, "Time per request", "%.3f [ms] (mean, succeeded)", ms(st.Latency.Mean))
	across := 0.0
	if st.Succeeded > 0 {
		across = ms(st.Elapsed) / float64(st.Succeeded)
	}
	abRow(b, "Time per request", "%.3f [ms] (mean, across all concurrent requests)", across)
	abRow(b, "Transfer rate", "%.2f [Kbytes/sec] received", st.TransferRate/1024)
	sent := 0.0
	if secs := st.Elapsed.Seconds(); secs > 0 {
		sent = float64(st.BytesSent) / secs / 1024
	}
	fmt.Fprintf(b, "%-24s%.2f kb/s sent\n", "", sent)
}

// abTimes prints ab's Connection Times and percentile tables: latency of the
// succeeded requests, with the failed ones on a row of their own.
func abTimes(b *bytes.Buffer, st results.Stats, connections int) {
	// ab splits Total into Processing and Waiting per request; connections
	// here are timed apart from requests (one per connection, not per
	// request with keep-alive), so only the two honest rows are shown.
	b.WriteString("\nConnection Times (ms)\n")
	fmt.Fprintf(b, "%-9s %8s %8s %8s %8s %8s\n", "", "min", "mean", "[+/-sd]", "median", "max")
	dist := func(label string, d results.Distribution, note string) {
		fmt.Fprintf(b, "%-9s %8.2f %8.2f %8.2f %8.2f %8.2f%s\n",
			label, ms(d.Min), ms(d.Mean), ms(d.StdDev), ms(d.P50), ms(d.Max), note)
	}
	dist("Connect:", st.Connect, " ("+plural(connections, "new connection")+")")
	dist("Total:", st.Latency, "")
	if st.Failed > 0 {
		dist("Failed:", st.FailedLatency, " (failed requests, not in the figures above or below)")
	}
	b.WriteString("\nPercentage of the succeeded requests served within a certain time (ms)\n")
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

// trialsBlock prints each trial's figures and their spread, so that a
// reader can tell a steady median from one picked out of scattered runs.
func trialsBlock(b *bytes.Buffer, phases []*results.PhaseResult, sp *results.Spread) {
	b.WriteString("Trials\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "trial\trequests\trps\tp50 (ms)\tp99 (ms)\t\n")
	for _, t := range trialRows(phases) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.2f\t\n", t.Label, t.Requests, t.RPS, ms(t.P50), ms(t.P99))
	}
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
	b.WriteString(fmtSpread(sp) + "\n\n")
}

// summaryThresholds prints one row per verdict, failures pointing at the
// rule's line in the scenario file.
func summaryThresholds(b *bytes.Buffer, vs []results.Verdict) {
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
func consoleStatus(v results.Verdict) string {
	switch classify(v) {
	case classInconclusive:
		if v.Fails() {
			return "✗ INCONCLUSIVE"
		}
		return "? inconclusive"
	case classIncomparable:
		if v.Fails() {
			return "✗ INCOMPARABLE"
		}
		return "≠ incomparable"
	case classFail:
		if v.Status == results.StatusError {
			return "✗ ERROR"
		}
		return "✗ FAIL"
	case classWarn:
		return "! WARN"
	case classSkip:
		return "- skip"
	case classNotJudged:
		return "⚠ not judged"
	default:
		return "✓ pass"
	}
}

// BaselineNote prints which baseline the run is judged against and, on its
// own line, whether it comes from a different environment. It is printed
// before the load starts and again after the summaries, so a long log
// shows it next to the verdicts as well.
func (c *Console) BaselineNote(bi *results.BaselineInfo) {
	if bi == nil {
		return
	}
	var b strings.Builder
	src := bi.File
	if len(bi.Files) > 1 {
		src += fmt.Sprintf(" (%d results files)", len(bi.Files))
	}
	if bi.History {
		src = "main's history in " + src + " (each case against main's latest stable level)"
	}
	switch {
	case bi.History && bi.FingerprintMatch:
		fmt.Fprintf(&b, "Baseline: %s, runs of the same environment only.\n", src)
	case bi.FingerprintMatch:
		fmt.Fprintf(&b, "Baseline: %s, measured in the same environment.\n", src)
	case bi.StrictEnv:
		fmt.Fprintf(&b, "Baseline: %s\nERROR: the baseline was measured in a different environment, which --strict-env makes a failure: %s\n",
			src, envSummary(bi.Differences))
	default:
		fmt.Fprintf(&b, "Baseline: %s\nWARNING: the baseline was measured in a different environment (%s); a change against it may come from the machine rather than the code.\n",
			src, envSummary(bi.Differences))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLive()
	c.write(b.String())
}

// consoleErrorSamples prints the first message of each error kind, so that
// the summary says what went wrong ("connection refused"), not only how
// often.
func consoleErrorSamples(b *bytes.Buffer, st results.Stats) {
	st.Errors.Each(func(kind string, n int64) {
		if msg := st.ErrorSamples[kind]; n > 0 && msg != "" {
			fmt.Fprintf(b, "   first %s error: %s\n", kind, oneLine(msg))
		}
	})
}

// Headline prints the run's headline, the words every other report opens
// with, as the console's last line; also with --quiet, whose output is the
// verdict.
func (c *Console) Headline(run *results.Run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLive()
	c.write(Headline(run) + "\n")
}
