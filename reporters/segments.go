package reporters

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loadgate/loadgate/results"
)

// A merged run lists its parts, one row per segment, in every report: which
// machine sent which share, when it started, what it measured, and whether
// its share is in the figures at all.

// segmentRow is one part of a merged run as reports show it.
type segmentRow struct {
	Segment, Host, Share, Requests, Started, Status string
}

func segmentRows(mi *results.MergeInfo) []segmentRow {
	if mi == nil {
		return nil
	}
	var t0 time.Time
	for _, s := range mi.Segments {
		if !s.Missing && !s.NothingToSend && (t0.IsZero() || s.Start.Before(t0)) {
			t0 = s.Start
		}
	}
	rows := make([]segmentRow, 0, len(mi.Segments))
	for _, s := range mi.Segments {
		r := segmentRow{Segment: fmt.Sprintf("%d/%d", s.Index, len(mi.Segments)), Host: s.Hostname,
			Share: results.Percent(s.Share), Requests: "—", Started: "—", Status: segmentStatus(s)}
		if !s.Missing {
			r.Requests = strconv.FormatInt(s.Requests, 10)
			if s.Requests != s.Succeeded {
				r.Requests += fmt.Sprintf(" (%d failed)", s.Requests-s.Succeeded)
			}
			r.Started = s.Start.UTC().Format("15:04:05.000") + fmt.Sprintf(" (+%s)", s.Start.Sub(t0).Round(time.Millisecond))
		}
		if r.Host == "" {
			r.Host = "—"
		}
		rows = append(rows, r)
	}
	return rows
}

// segmentStatus is "ok", "missing", "incomplete: …", "nothing to send",
// with ", late: …" when the segment started out of step.
func segmentStatus(s results.MergedSegment) string {
	st := "ok"
	switch {
	case s.Missing && s.Share == 0:
		st = "missing, with no share of the load"
	case s.Missing:
		st = "missing: no part arrived"
	case s.Incomplete != "":
		st = "incomplete: " + s.Incomplete
	case s.NothingToSend:
		st = "nothing to send"
	}
	if s.Late != "" {
		st += "; " + s.Late
	}
	return st
}

// partialNote is what the headline adds about the parts: what a merge
// lacks and judged anyway, and which segments started out of step.
func partialNote(run *results.Run) string {
	mi := run.Merged
	var notes []string
	if mi != nil && mi.AllowPartial && len(mi.Partial()) > 0 {
		notes = append(notes, "partial, judged on what arrived (--allow-partial): "+mi.PartialText())
	}
	if t := mi.SkewText(); t != "" {
		notes = append(notes, t)
	}
	if len(notes) == 0 {
		return ""
	}
	return "⚠ " + strings.Join(notes, " · ⚠ ")
}

// WriteSegmentRows prints a merged run's parts as a table for the console.
func WriteSegmentRows(w io.Writer, mi *results.MergeInfo) {
	rows := segmentRows(mi)
	if len(rows) == 0 {
		return
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  segment\thost\tshare\trequests\tstarted (UTC)\tstatus")
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.Segment, ConsoleText(r.Host), r.Share, r.Requests, r.Started, ConsoleText(r.Status))
	}
	_ = tw.Flush()
	b.WriteString("\n")
	_, _ = w.Write(b.Bytes())
}

// mdSegments is the Markdown table of a merged run's parts.
func mdSegments(b *bytes.Buffer, run *results.Run) {
	rows := segmentRows(run.Merged)
	if len(rows) == 0 {
		return
	}
	b.WriteString("| segment | host | share of the load | requests | started (UTC) | status |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", r.Segment, mdText(r.Host), r.Share, r.Requests, r.Started, mdText(r.Status))
	}
	b.WriteString("\n")
}

// htmlSegments is the banner listing a merged run's parts: a warning when
// some share is missing, incomplete or out of step.
func htmlSegments(run *results.Run) (htmlBanner, bool) {
	rows := segmentRows(run.Merged)
	if len(rows) == 0 {
		return htmlBanner{}, false
	}
	b := htmlBanner{Class: "info", Text: fmt.Sprintf("Merged from %d segments:", len(rows))}
	if mi := run.Merged; len(mi.Partial()) > 0 || len(mi.Skewed()) > 0 {
		b.Class = "warn"
		if mi.NotJudged() {
			b.Class = "fail"
		}
	}
	for _, r := range rows {
		b.Items = append(b.Items, fmt.Sprintf("segment %s · %s · %s of the load · %s requests · started %s · %s", r.Segment, r.Host, r.Share, r.Requests, r.Started, r.Status))
	}
	return b, true
}
