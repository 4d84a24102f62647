package reporters

import (
	"fmt"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// The rows of the tables that summary.md, report.html and the console
// share, computed once here: each renderer only lays them out and escapes
// them for its format, so the reports cannot disagree on a figure.

// flowStepRow is one step of a flow: its requests, its succeeded rps, the
// latency of its succeeded requests and its failures by kind.
type flowStepRow struct {
	Name, Requests, RPS, P50, P99, Errors string
}

// flowStepRows are a flow case's steps in step order.
func flowStepRows(steps []results.NamedStats) []flowStepRow {
	rows := make([]flowStepRow, 0, len(steps))
	for _, s := range steps {
		errs := units.FormatCount(s.Failed)
		if k := errorKinds(s.Errors); k != "" {
			errs += " (" + k + ")"
		}
		rows = append(rows, flowStepRow{
			Name: s.Name, Requests: units.FormatCount(s.Requests), RPS: units.FormatNumber(s.RPS, units.Figure),
			P50:    stepLatency(s.Succeeded, func() string { return units.FormatDuration(s.Latency.P50, units.Figure) }),
			P99:    stepLatency(s.Succeeded, func() string { return units.FormatDuration(s.Latency.P99, units.Figure) }),
			Errors: errs,
		})
	}
	return rows
}

// flowIterationsLine sums up a flow's iterations: how many, how many a
// failed step ended, their rate and their latency.
func flowIterationsLine(it *results.IterationStats) string {
	line := fmt.Sprintf("Iterations: %s (%s failed) · %s/s succeeded", units.FormatCount(it.Iterations), units.FormatCount(it.Failed), units.FormatNumber(it.RPS, units.Figure))
	if it.Succeeded > 0 {
		line += " · p50 " + units.FormatDuration(it.Latency.P50, units.Figure) + " · p99 " + units.FormatDuration(it.Latency.P99, units.Figure)
	}
	return line
}

// statusRow is the responses of one HTTP status code of a case.
type statusRow struct {
	Code, Responses string
	Share           string // of the case's requests
}

// caseStatuses are a case's responses by status code, in code order.
type caseStatuses struct {
	Case string
	Rows []statusRow
}

// statusCodeRows lists the HTTP responses of each case of sr by status
// code; cases that counted none (gRPC, TCP, WebSocket) are left out.
func statusCodeRows(sr *results.ScenarioRun) []caseStatuses {
	var out []caseStatuses
	for _, c := range sr.Cases {
		cs := caseStatuses{Case: c.ID}
		c.Stats.EachStatus(func(code string, n int64) {
			share := "—"
			if c.Stats.Requests > 0 {
				share = fmtPct(float64(n) / float64(c.Stats.Requests))
			}
			cs.Rows = append(cs.Rows, statusRow{Code: code, Responses: units.FormatCount(n), Share: share})
		})
		if len(cs.Rows) > 0 {
			out = append(out, cs)
		}
	}
	return out
}

// trialRow is one trial of a phase run with trials.
type trialRow struct {
	// Label numbers the trial from 1, with its phase's name before the
	// number when more than one phase of the case had trials.
	Label string
	results.Trial
}

// trialRows are the trials of phases in run order.
func trialRows(phases []*results.PhaseResult) []trialRow {
	withTrials := 0
	for _, p := range phases {
		if len(p.Trials) > 0 {
			withTrials++
		}
	}
	var rows []trialRow
	for _, p := range phases {
		for i, t := range p.Trials {
			label := fmt.Sprint(i + 1)
			if withTrials > 1 {
				label = p.Name + " " + label
			}
			rows = append(rows, trialRow{Label: label, Trial: t})
		}
	}
	return rows
}
