package reporters

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

func TestHeadlineOfAPartialMerge(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	segs := func(mod func(s []results.MergedSegment)) []results.MergedSegment {
		s := []results.MergedSegment{
			{Index: 1, Hostname: "lg-1", Start: t0, Share: 0.5, Requests: 100, Succeeded: 100},
			{Index: 2, Hostname: "lg-2", Start: t0, Share: 0.25, Requests: 50, Succeeded: 48},
			{Index: 3, Hostname: "lg-3", Start: t0, Share: 0.25, Requests: 50, Succeeded: 50},
		}
		mod(s)
		return s
	}
	for _, tc := range []struct {
		name, headline, row string
		allow               bool
		segs                []results.MergedSegment
	}{
		{"every part", "✅ loadgate: passed", "| 2/3 | lg-2 | 25 % | 50 (2 failed) | 12:00:00.000 (+0s) | ok |", false,
			segs(func([]results.MergedSegment) {})},
		{"missing", "⚠ loadgate: partial — segment 2/3 missing: 25 % of the load; thresholds not judged",
			"| 2/3 | — | 25 % | — | — | missing: no part arrived |", false,
			segs(func(s []results.MergedSegment) { s[1] = results.MergedSegment{Index: 2, Share: 0.25, Missing: true} })},
		{"missing, judged anyway", "✅ loadgate: passed · ⚠ partial, judged on what arrived (--allow-partial): segment 2/3 missing: 25 % of the load",
			"| 2/3 | — | 25 % | — | — | missing: no part arrived |", true,
			segs(func(s []results.MergedSegment) { s[1] = results.MergedSegment{Index: 2, Share: 0.25, Missing: true} })},
		{"interrupted and late", "⚠ loadgate: partial — segment 1/3 incomplete (interrupted): 50 % of the load; thresholds not judged · ⚠ segment 3/3 started 2s after --start-at",
			"| 3/3 | lg-3 | 25 % | 50 | 12:00:02.000 (+2s) | ok; started 2s after --start-at |", false,
			segs(func(s []results.MergedSegment) {
				s[0].Incomplete = "interrupted"
				s[2].Late, s[2].Start = "started 2s after --start-at", t0.Add(2*time.Second)
			})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := results.NewRun(results.Meta{Start: t0, End: t0.Add(time.Second),
				Merged: &results.MergeInfo{Segments: tc.segs, AllowPartial: tc.allow}}, nil)
			if got := Headline(run); got != tc.headline {
				t.Errorf("headline\n got %q\nwant %q", got, tc.headline)
			}
			var md bytes.Buffer
			mdSegments(&md, run)
			if !strings.Contains(md.String(), tc.row) {
				t.Errorf("summary.md rows lack %q:\n%s", tc.row, md.String())
			}
			var con bytes.Buffer
			WriteSegmentRows(&con, run.Merged)
			if lines := strings.Count(con.String(), "\n"); lines != 5 {
				t.Errorf("console rows: %d lines, want a header, 3 rows and a blank line:\n%s", lines, con.String())
			}
		})
	}
}

func TestAnnotationsOfAPartialMerge(t *testing.T) {
	missing := []results.MergedSegment{{Index: 1, Share: 0.5, Requests: 10, Succeeded: 10}, {Index: 2, Share: 0.5, Missing: true, Late: ""}}
	for _, tc := range []struct {
		name  string
		mi    *results.MergeInfo
		want  string
		wantN int
	}{
		{"not judged", &results.MergeInfo{Segments: missing},
			"::error title=loadgate%3A partial — not judged::segment 2/2 missing: 50 %25 of the load; thresholds not judged", 1},
		{"judged anyway", &results.MergeInfo{Segments: missing, AllowPartial: true},
			"::warning title=loadgate%3A partial%2C judged on what arrived (--allow-partial)::segment 2/2 missing: 50 %25 of the load", 1},
		{"late", &results.MergeInfo{Segments: []results.MergedSegment{{Index: 1, Share: 0.5}, {Index: 2, Share: 0.5, Late: "started 2s after --start-at"}}},
			"::warning title=loadgate%3A segments out of step::segment 2/2 started 2s after --start-at", 1},
		{"every part in step", &results.MergeInfo{Segments: []results.MergedSegment{{Index: 1, Share: 1}}}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteAnnotations(&b, results.NewRun(results.Meta{Merged: tc.mi}, nil), nil)
			if n := strings.Count(b.String(), "::"); n/2 != tc.wantN || !strings.Contains(b.String(), tc.want) {
				t.Errorf("annotations:\n%s\nwant %d containing %q", b.String(), tc.wantN, tc.want)
			}
		})
	}
}
