package reporters

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/loadgate/loadgate/history"
	"github.com/loadgate/loadgate/history/changepoint"
	"github.com/loadgate/loadgate/units"
)

// HistoryOptions are what `history show` knows beside the analyses: the
// parameters the change points were found with, and the repository.
type HistoryOptions struct {
	// Options are the change-point parameters used, named in the header.
	Options changepoint.Options
	// Commits counts the commits in (good, firstChanged]; ok is false when
	// it does not know them. Nil counts none.
	Commits func(good, firstChanged *history.Entry) (n int, ok bool)
	// CommitURL is a commit's page; nil, or "" for a commit, links none.
	CommitURL func(sha string) string
}

// WriteHistory prints each analysed series for a terminal: a heading that
// names the series, its segments as a table, then each change point with
// its magnitude, direction, p-value and the commits between which it
// happened. Every name and commit from the store is escaped (ConsoleText).
func WriteHistory(w io.Writer, as []*history.Analysis, o HistoryOptions) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s · change points: %s\n", seriesCount(len(as)), detectionParams(o.Options))
	if len(as) == 0 {
		b.WriteString("No series to show: the store holds no run that matches.\n")
	}
	for _, a := range as {
		b.WriteString("\n")
		writeHistorySeries(&b, a, o)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	return nil
}

// detectionParams names the change-point parameters in one phrase.
func detectionParams(o changepoint.Options) string {
	mag := "none"
	if o.MinMagnitude > 0 {
		mag = units.FormatNumber(o.MinMagnitude*100, units.Actual) + "%"
	}
	return fmt.Sprintf("window %d runs, p-value below %s, minimum magnitude %s",
		o.Window, units.FormatNumber(o.PValue, units.Actual), mag)
}

func writeHistorySeries(b *bytes.Buffer, a *history.Analysis, o HistoryOptions) {
	s := a.Series
	title := seriesTitle(s)
	fmt.Fprintf(b, "%s\n%s\n", lineText(title), strings.Repeat("=", len([]rune(lineText(title)))))
	for _, line := range seriesAbout(s) {
		b.WriteString("  " + lineText(line) + "\n")
	}
	if len(a.Segments) == 0 {
		b.WriteString("  no runs\n")
		return
	}
	if len(a.Changes) == 0 {
		last := a.Last()
		fmt.Fprintf(b, "  no change point: one level, %s over %s, %s\n",
			lineText(levelText(s, last)), plural(last.Runs(), "run"), lineText(segmentCommits(s, last)))
		return
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  segment\truns\tcommits\tsince\tlevel\tspread")
	for i, seg := range a.Segments {
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\n", i+1, seg.Runs(), lineText(segmentCommits(s, seg)),
			runDate(s.Points[seg.Start].Run), lineText(s.Info.Format(seg.Level)), spreadText(seg.Spread))
	}
	tw.Flush()
	b.WriteString("\n")
	for i, ch := range a.Changes {
		fmt.Fprintf(b, "  change %d → %d at run %d of %d: %s, %s, %s → %s, p = %s\n", i+1, i+2, ch.Index+1, len(s.Points),
			magnitudeText(ch.Magnitude), direction(ch), lineText(s.Info.Format(ch.Before)), lineText(s.Info.Format(ch.After)), pValueText(ch.PValue))
		fmt.Fprintf(b, "    %s\n", lineText(changeSpan(ch, o.Commits)))
	}
	last := a.Last()
	fmt.Fprintf(b, "  newest level: %s over %s since %s\n", lineText(s.Info.Format(last.Level)),
		plural(last.Runs(), "run"), runDate(s.Points[last.Start].Run))
}

// seriesTitle names a series: scenario / case / metric.
func seriesTitle(s *history.Series) string {
	return s.Key.Scenario + " / " + s.Key.Case + " / " + s.Key.Metric
}

// seriesAbout says where and with which load a series was measured, and
// over how many runs.
func seriesAbout(s *history.Series) []string {
	load := "load " + s.Key.Load
	if s.Key.Load == "" {
		load = "load unrecorded"
	}
	out := []string{"environment " + s.Key.Env + ": " + s.Environment.String()}
	switch n := len(s.Points); n {
	case 0:
		out = append(out, load)
	case 1:
		out = append(out, fmt.Sprintf("%s · 1 run, %s", load, runDate(s.Points[0].Run)))
	default:
		out = append(out, fmt.Sprintf("%s · %d runs, %s to %s", load, n, runDate(s.Points[0].Run), runDate(s.Points[n-1].Run)))
	}
	return out
}

// segmentCommits is the short commits of a segment's first and last runs,
// "a1b2c3d..e4f5a6b", or the one commit of a one-run segment.
func segmentCommits(s *history.Series, seg history.Segment) string {
	first := history.ShortCommit(s.Points[seg.Start].Run.Commit)
	if seg.Runs() == 1 {
		return first
	}
	return first + ".." + history.ShortCommit(s.Points[seg.End-1].Run.Commit)
}

// changeSpan is where the commit that did it lies, in words:
// "between a1b2c3d (good) and e4f5a6b (first worse), 3 commits".
func changeSpan(ch history.Change, commits func(good, first *history.Entry) (int, bool)) string {
	span := fmt.Sprintf("between %s (good) and %s (first %s)",
		history.ShortCommit(ch.Good.Commit), history.ShortCommit(ch.FirstChanged.Commit), direction(ch))
	if n, ok := commitsBetween(ch, commits); ok {
		span += ", " + plural(n, "commit")
	}
	return span
}

// commitsBetween counts the commits in (Good, FirstChanged] with commits,
// else knows one when the first changed run's parent is the good run's
// commit, as `history check` does.
func commitsBetween(ch history.Change, commits func(good, first *history.Entry) (int, bool)) (int, bool) {
	if commits != nil {
		if n, ok := commits(ch.Good, ch.FirstChanged); ok {
			return n, true
		}
	}
	if ch.FirstChanged.Parent != "" && ch.FirstChanged.Parent == ch.Good.Commit {
		return 1, true
	}
	return 0, false
}

func direction(ch history.Change) string {
	if ch.Worse {
		return "worse"
	}
	return "better"
}

// magnitudeText is a relative change as a signed percentage with a true
// minus sign, as the reports write changes: "+20.0%", "−12.5%".
func magnitudeText(m float64) string {
	switch p := m * 100; {
	case math.IsNaN(p):
		return "—"
	case p < 0:
		return fmt.Sprintf("−%.1f%%", -p)
	default:
		return fmt.Sprintf("+%.1f%%", p)
	}
}

// pValueText writes a p-value with two significant digits: 0.00042, 1e-12.
func pValueText(p float64) string { return fmt.Sprintf("%.2g", p) }

// seriesCount is "1 series", "8 series".
func seriesCount(n int) string { return fmt.Sprintf("%d series", n) }

// levelText is a segment's level with its spread, "1.25ms (spread
// 1.4%)"; a single run has no spread to show.
func levelText(s *history.Series, seg history.Segment) string {
	if seg.Runs() < 2 {
		return s.Info.Format(seg.Level)
	}
	return s.Info.Format(seg.Level) + " (spread " + spreadText(seg.Spread) + ")"
}

// spreadText is a coefficient of variation as a percentage.
func spreadText(cov float64) string { return fmt.Sprintf("%.1f%%", cov*100) }

func runDate(e *history.Entry) string { return e.Time.UTC().Format("2006-01-02") }

// lineText makes s safe on one line of a terminal table: control
// characters, tabs and newlines included, are shown as escapes, so that a
// name can neither break the table nor drive the terminal.
func lineText(s string) string {
	if !needsEscape(s, false) {
		return s
	}
	var b strings.Builder
	writeEscaped(&b, s, false)
	return b.String()
}
