package reporters

import (
	"fmt"
	"strings"

	"github.com/loadgate/loadgate/results"
)

// A comparison shows one figure per metric: the one its verdict compares.
// With trials that is the median trial's (results.TrialMedians), which
// can differ by tens of percent from the figure of every request pooled,
// so every report quotes it and says so.

// baselineDelta is the change of rps and p99 against the baseline case,
// of the figures regressed() compares (the median trial's), so that it is
// the number the verdicts quote; none when the baseline's load differs.
func baselineDelta(c *results.CaseRun) string {
	b := c.Baseline
	switch {
	case b == nil:
		return "— (no baseline case)"
	case len(b.LoadDifferences) > 0:
		return "≠ not compared: the load changed"
	case b.Undecided != "":
		return "❔ not compared: " + b.Undecided
	}
	m := results.TrialMedians(c.Phases)
	of := statisticOf(b.Trials, m.Trials)
	if b.Runs > 0 {
		of = fmt.Sprintf("vs main's level: %d runs %s, %d trials pooled", b.Runs, b.Commits, b.Trials)
	}
	return "rps " + fmtDelta(b.RPS, m.RPS) + ", p99 " + fmtDelta(float64(b.P99), float64(m.P99)) + " (" + of + ")"
}

// statisticOf says which figure a delta compares: the median trial's of
// base against cand trials, or, with one a side, all requests'.
func statisticOf(base, cand int) string {
	if base <= 1 && cand <= 1 {
		return "all requests"
	}
	return fmt.Sprintf("median of %d vs %d trials", base, cand)
}

// loadChangedNote says why a case was not compared with its baseline.
func loadChangedNote(c *results.CaseRun) string {
	if c.Baseline == nil || len(c.Baseline.LoadDifferences) == 0 {
		return ""
	}
	return "the load changed since the baseline (" + strings.Join(c.Baseline.LoadDifferences, ", ") +
		"), so its comparisons were not judged: a change of the test is not a change of the code. Record a new baseline with this load."
}
