package reporters

import (
	"fmt"
	"html/template"
	"strconv"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

type htmlScenario struct {
	Name, Description, File, Hash string
	Icon, Class                   string
	Error, Aborted                string
	// Stalls are the stalls and early ends of the scenario's phases.
	Stalls       []string
	Columns      []string
	Rows         []htmlRow
	Notes        []string
	Knees        []string
	MatrixCharts []template.HTML
	Searches     []htmlSearch
	Thresholds   []htmlVerdict
	AB           []htmlAB
	ABSummary    []string
	Errors       []string
	// Statuses are the HTTP responses of each case by status code.
	Statuses []caseStatuses
	Flows    []htmlFlow
	Cases    []htmlCase
	// Servers are the servers side by side, when a case watched several.
	Servers *serversTable
}

type htmlRow struct {
	ID, Class string
	Knee      bool
	Cells     []string
}

type htmlVerdict struct {
	Icon, Class, Case, Rule, Actual, Where string
}

type htmlAB struct {
	Case, Ref, RPS, P99 string
	Verdicts            []htmlVerdict
	Chart               template.HTML
}

type htmlSearch struct {
	Case, Phase, SLO, Line string
	Chart                  template.HTML
	Probes                 [][]string
}

type htmlCase struct {
	ID, Error string
	Charts    []template.HTML
	Notes     []string
	Generator [][]string
	Trials    *htmlTrials
}

// verdictClass is the CSS class of a verdict icon: its meaning is in the
// icon and the word, the colour only repeats it.
func verdictCSS(v results.Verdict) string {
	switch classify(v) {
	case classFail:
		return "fail"
	case classWarn, classInconclusive, classIncomparable:
		return "warn"
	case classSkip, classNotJudged:
		return "skip"
	}
	return "pass"
}

// htmlScenarioOf lays out one scenario; notJudged marks a merge lacking
// some segment's load, whose scenarios were not judged.
func htmlScenarioOf(sr *results.ScenarioRun, withBaseline, notJudged bool) htmlScenario {
	hs := htmlScenario{Name: sr.Name, Description: sr.Description, File: sr.File, Error: sr.Error}
	if len(sr.Hash) > 12 {
		hs.Hash = sr.Hash[:12]
	} else {
		hs.Hash = sr.Hash
	}
	t := tally(sr.AllVerdicts())
	switch {
	case sr.Interrupted:
		hs.Icon, hs.Class = "⏹ interrupted", "warn"
	case scenarioInvalid(sr):
		hs.Icon, hs.Class = "⚠ invalid — not judged", "fail"
	case sr.Aborted != nil:
		hs.Icon, hs.Class = "⛔ aborted", "fail"
	case !sr.Passed():
		hs.Icon, hs.Class = "❌ failed", "fail"
	case notJudged:
		hs.Icon, hs.Class = "⚠ partial — not judged", "fail"
	case t[classWarn] > 0:
		hs.Icon, hs.Class = "⚠️ warned", "warn"
	case t[classInconclusive] > 0:
		hs.Icon, hs.Class = "❔ inconclusive", "warn"
	case t[classIncomparable] > 0:
		hs.Icon, hs.Class = "≠ incomparable", "warn"
	default:
		hs.Icon, hs.Class = "✅ passed", "pass"
	}
	if sr.Aborted != nil {
		hs.Aborted = "⛔ Aborted " + AbortReason(sr.Aborted) + ". The load was stopped there; the run fails."
	}
	for _, c := range sr.Cases {
		for _, n := range phaseNotes(c.Phases) {
			hs.Stalls = append(hs.Stalls, c.ID+": "+n)
		}
	}
	knees := findKnees(sr)
	htmlCaseTable(&hs, sr, knees, withBaseline)
	hs.Servers = serversTableOf(sr)
	for _, c := range sr.Cases {
		for _, n := range namedUsageNotes(c) {
			hs.Notes = append(hs.Notes, "⚠️ "+n)
		}
	}
	for _, k := range knees {
		hs.Knees = append(hs.Knees, htmlKneeNote(k))
	}
	for _, ch := range kneeCharts(sr, knees) {
		hs.MatrixCharts = append(hs.MatrixCharts, ch.Render())
	}
	for _, c := range sr.Cases {
		c.Stats.Errors.Each(func(kind string, n int64) {
			if msg := c.Stats.ErrorSamples[kind]; n > 0 && msg != "" {
				hs.Errors = append(hs.Errors, fmt.Sprintf("%s: %s × %s, first: %s", c.ID, kind, units.FormatCount(n), msg))
			}
		})
		for _, p := range results.SearchedPhases(c.Phases) {
			hs.Searches = append(hs.Searches, htmlSearchOf(sr, c, p.Name, p.Search))
		}
		hs.Cases = append(hs.Cases, htmlCaseOf(c))
	}
	hs.Statuses, hs.Flows = statusCodeRows(sr), htmlFlowsOf(sr)
	for _, v := range sr.AllVerdicts() {
		hs.Thresholds = append(hs.Thresholds, htmlVerdictOf(v))
	}
	htmlABOf(&hs, sr)
	return hs
}

func htmlVerdictOf(v results.Verdict) htmlVerdict {
	rule := v.Rule
	if v.Name != "" && v.Name != v.Rule {
		rule = v.Name + ": " + v.Rule
	}
	if v.Severity != "" && v.Severity != "fail" {
		rule += " (" + string(v.Severity) + ")"
	}
	word := map[string]string{"fail": "failed", "warn": "warned", "skip": "skipped", "pass": "passed"}[verdictCSS(v)]
	if classify(v) == classNotJudged {
		word = "not judged"
	}
	if v.Status == results.StatusInconclusive || v.Status == results.StatusIncomparable {
		word = string(v.Status)
	}
	return htmlVerdict{Icon: verdictIcon(v) + " " + word, Class: verdictCSS(v), Case: v.Case, Rule: rule,
		Actual: verdictActual(v), Where: where(v.Pos)}
}

// htmlKneeNote is the plain sentence of a sweep's knee.
func htmlKneeNote(k knee) string {
	who := k.target
	if k.fixed != "" {
		who += " (" + k.fixed + ")"
	}
	if k.at == nil {
		return fmt.Sprintf("Knee of %s: none up to %s=%s — throughput grows by 10%% or more at every step.",
			who, kneeKey, strconv.FormatFloat(k.levels[len(k.levels)-1], 'f', -1, 64))
	}
	a, n := k.at.Stats.RPS, k.next.Stats.RPS
	growth := 0.0
	if a > 0 {
		growth = (n/a - 1) * 100
	}
	return fmt.Sprintf("Knee of %s at %s=%s: beyond it throughput grows by less than 10%% (%s → %s rps, %+.1f%%) while p99 goes %s → %s.",
		who, kneeKey, matrixText(kneeLevel(k.at)), units.FormatNumber(a, units.Figure), units.FormatNumber(n, units.Figure), growth,
		units.FormatDuration(k.at.Stats.Latency.P99, units.Figure), units.FormatDuration(k.next.Stats.Latency.P99, units.Figure))
}

// htmlCaseTable fills the scenario's table of cases; columns for server
// usage and the baseline appear only when some case has them.
func htmlCaseTable(hs *htmlScenario, sr *results.ScenarioRun, knees []knee, withBaseline bool) {
	kneeAt := map[*results.CaseRun]bool{}
	for _, k := range knees {
		if k.at != nil {
			kneeAt[k.at] = true
		}
	}
	server, _ := usageColumns(sr)
	cost := costColumn(sr)
	hs.Columns = []string{"case", "requests", "rps (succeeded/s)", "p50", "p90", "p99", "max", "errors"}
	if server {
		hs.Columns = append(hs.Columns, "server CPU mean / max")
	}
	if cost {
		hs.Columns = append(hs.Columns, "server CPU per request (µs)")
	}
	if server {
		hs.Columns = append(hs.Columns, "server RSS max (MiB)")
	}
	if withBaseline {
		hs.Columns = append(hs.Columns, "Δ vs baseline")
	}
	hs.Columns = append(hs.Columns, "failed by kind")
	for _, c := range sr.Cases {
		st := c.Stats
		var lat []string
		for _, d := range []time.Duration{st.Latency.P50, st.Latency.P90, st.Latency.P99, st.Latency.Max} {
			lat = append(lat, units.FormatDuration(d, units.Figure))
		}
		if st.Succeeded == 0 {
			lat = []string{"—", "—", "—", "—"}
		}
		errs := units.FormatCount(st.Failed)
		if st.Requests > 0 {
			errs += " (" + fmtPct(st.ErrorRate) + ")"
		}
		rps := units.FormatNumber(st.RPS, units.Figure)
		if st.Trials != nil {
			rps += fmt.Sprintf(" ± %.1f%%", st.Trials.RPSCV*100)
		}
		row := htmlRow{ID: c.ID, Knee: kneeAt[c], Cells: append([]string{units.FormatCount(st.Requests), rps}, lat...)}
		row.Cells = append(row.Cells, errs)
		cpu, rss, _ := usageCells(c.Server)
		if server {
			row.Cells = append(row.Cells, cpu)
		}
		if cost {
			row.Cells = append(row.Cells, costCell(c.Server))
		}
		if server {
			row.Cells = append(row.Cells, rss)
		}
		if withBaseline {
			row.Cells = append(row.Cells, baselineDelta(c))
		}
		row.Cells = append(row.Cells, orDash(errorKinds(st.Errors)))
		if c.Error != "" {
			row.Class = "fail"
			hs.Notes = append(hs.Notes, "❌ "+c.ID+" could not run: "+c.Error)
		}
		if note := usageNote(c); note != "" {
			hs.Notes = append(hs.Notes, "⚠️ "+note)
		}
		if st.Dropped > 0 {
			hs.Notes = append(hs.Notes, fmt.Sprintf("⚠️ %s dropped %s arrivals: the server, or the machine generating the load, could not keep up with the requested rate.", c.ID, units.FormatCount(st.Dropped)))
		}
		hs.Rows = append(hs.Rows, row)
	}
}

// htmlSearchOf shows a capacity search: its probes, what it found, and
// p99 against the probe rate with the SLO's bound.
func htmlSearchOf(sr *results.ScenarioRun, c *results.CaseRun, phase string, s *results.SearchResult) htmlSearch {
	spec := specFor(c.SearchSpecs, phase)
	hs := htmlSearch{Case: c.ID, Phase: phase, SLO: spec.SLO, Line: capacityLine(s, spec.Precision)}
	if s.Reason != "" {
		hs.Line += " · search ended: " + oneLine(s.Reason)
	}
	for i, p := range s.Probes {
		hs.Probes = append(hs.Probes, []string{strconv.Itoa(i + 1), p.Kind, fmtRateInt(p.Rate), units.FormatNumber(p.Achieved, units.Figure),
			units.FormatDuration(p.P50, units.Figure), units.FormatDuration(p.P99, units.Figure), fmtPct(p.ErrorRate), probeVerdict(p)})
	}
	if len(s.Probes) > 0 {
		hs.Chart = searchChart(sr.Name+" / "+c.ID, s.Probes, spec.SLO).Render()
	}
	return hs
}

// htmlABOf fills the same-job A/B comparisons with both sides' figures
// and each comparing rule's verdict.
func htmlABOf(hs *htmlScenario, sr *results.ScenarioRun) {
	pairs := abPairs(sr)
	byTarget := map[string][]results.Verdict{}
	var order []string
	against := map[string]string{}
	for _, p := range pairs {
		t := p.cand.Target
		if _, seen := byTarget[t]; !seen {
			order = append(order, t)
		}
		byTarget[t] = append(byTarget[t], p.verdicts...)
		against[t] = p.target
		ab := htmlAB{Case: p.cand.ID, Ref: "— (" + p.target + " has no such case)",
			RPS: units.FormatNumber(p.cand.Stats.RPS, units.Figure), P99: units.FormatDuration(p.cand.Stats.Latency.P99, units.Figure)}
		if p.ref != nil {
			ab.Ref = p.ref.ID
			ab.RPS, ab.P99 = abFigures(p.cand, p.ref)
			ab.Chart = abPercentileChart(p.cand, p.ref).Render()
		}
		for _, v := range p.verdicts {
			hv := htmlVerdictOf(v)
			if v.Reason != "" {
				hv.Actual = v.Reason
			}
			ab.Verdicts = append(ab.Verdicts, hv)
		}
		hs.AB = append(hs.AB, ab)
	}
	for _, t := range order {
		vs := byTarget[t]
		hs.ABSummary = append(hs.ABSummary, fmt.Sprintf("%s %s against %s: %s", worstIcon(vs), t, against[t], tally(vs)))
	}
}

// htmlCaseOf draws one case: throughput and errors, latency over time,
// the HDR percentile plot, server usage, and the generator's health per
// phase (it is judged per phase, not sampled per second).
func htmlCaseOf(c *results.CaseRun) htmlCase {
	hc := htmlCase{ID: c.ID, Error: c.Error, Trials: htmlTrialsOf(c)}
	if len(c.Phases) == 0 {
		return hc
	}
	secs := caseSeconds(c)
	hc.Charts = append(hc.Charts, throughputChart(c, secs).Render(), latencyOverTimeChart(c, secs).Render(), percentileChart(c).Render())
	for _, ch := range serverCharts(c) {
		hc.Charts = append(hc.Charts, ch.Render())
	}
	hc.Notes = append(hc.Notes, "Time series: whole seconds only (the last, partial second of a phase and of each of its trials is left out); the per-second series keeps p50 and p99, not p90 — the case's p90 over all its requests is "+units.FormatDuration(c.Stats.Latency.P90, units.Figure)+"; errors per second are of every kind together, by kind only for the whole case: "+orDash(errorKinds(c.Stats.Errors))+".")
	switch {
	case c.Server.OfServer() && c.Server.Samples == 0:
		hc.Notes = append(hc.Notes, "No server CPU or memory: no sample ("+c.Server.Reason+").")
	case !serverSampled(c.Server):
		hc.Notes = append(hc.Notes, "No server CPU or memory: no server was started or monitored for this case.")
	}
	for _, p := range c.Phases {
		g := p.Generator
		state := "ok"
		if g.Saturated {
			state = "⛔ saturated: " + g.Reason
		}
		lag := "—"
		if g.SchedLagP99 > 0 {
			lag = units.FormatDuration(g.SchedLagP99, units.Figure)
		}
		dropped := "—"
		if p.Rate != nil {
			dropped = units.FormatCount(p.Dropped)
		}
		hc.Generator = append(hc.Generator, []string{p.Name, fmtPct(g.CPU), lag, dropped, state})
	}
	return hc
}
