package reporters

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// htmlTableRows are the cell texts of every table of page whose class is
// class, one slice per body row, a row that a cell above spans starting
// with "" as the Markdown table's does.
func htmlTableRows(t *testing.T, page, class string) [][]string {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(page))
	var rows [][]string
	in, inBody, inCell := false, false, false
	var row []string
	var cell strings.Builder
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			return rows
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "table":
				in = tableClass(z) == class
			case "tbody":
				inBody = in
			case "tr":
				row = nil
			case "td", "th":
				inCell = inBody
				cell.Reset()
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "tbody":
				inBody = false
			case "td", "th":
				if inCell {
					row = append(row, cell.String())
				}
				inCell = false
			case "tr":
				if inBody {
					rows = append(rows, row)
				}
			}
		case html.TextToken:
			if inCell {
				cell.Write(z.Text())
			}
		}
	}
}

func tableClass(z *html.Tokenizer) string {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "class" {
			return string(v)
		}
		if !more {
			return ""
		}
	}
}

// mdTableRows are the rows of the Markdown table after the line that
// begins with heading, code spans unwrapped.
func mdTableRows(md, heading string) [][]string {
	_, after, ok := strings.Cut(md, "\n"+heading)
	if !ok {
		return nil
	}
	var rows [][]string
	started := false
	for _, line := range strings.Split(after, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i, c := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(c), "`")
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		return nil
	}
	return rows[2:] // the header and the alignment row
}

// TestHTMLTablesMatchMarkdown reads the status-code and flow-step tables
// of the fixture's report.html and summary.md: the same rows, the same
// figures, in the same order.
func TestHTMLTablesMatchMarkdown(t *testing.T) {
	run := fixtureRun()
	var md bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	page := renderHTML(t, run)
	for _, tc := range []struct {
		name, class, heading string
		rows                 int // of the whole run
	}{
		{"status codes", "codes", "**Status codes**", 7 + 2}, // hello-http, hello-slo
		{"flow steps", "flow", "#### Flow `shop`", len(flowSteps)},
	} {
		got := htmlTableRows(t, page, tc.class)
		for i, r := range got {
			if len(r) == 3 && tc.class == "codes" {
				got[i] = append([]string{""}, r...) // under a spanned case
			}
		}
		// summary.md has one table per scenario; the page's rows in
		// order are theirs one after the other.
		var want [][]string
		for rest := md.String(); ; {
			rows := mdTableRows(rest, tc.heading)
			if rows == nil {
				break
			}
			want = append(want, rows...)
			_, rest, _ = strings.Cut(rest, "\n"+tc.heading)
		}
		if len(got) != tc.rows || !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: report.html rows\n%q\nsummary.md rows\n%q\nwant %d rows", tc.name, got, want, tc.rows)
		}
	}
}

// trialsPhaseOf is a merged phase of trials with the given rates (rps),
// 1,000 requests each; a rate of 0 is a trial in which every request
// failed.
func trialsPhaseOf(name string, rps ...float64) *results.PhaseResult {
	p := &results.PhaseResult{Name: name}
	for i, r := range rps {
		tr := results.Trial{Requests: 1000, RPS: r, Elapsed: 10 * time.Second,
			P50: time.Duration(i+1) * time.Millisecond, P99: time.Duration(i+1) * 10 * time.Millisecond}
		if r == 0 {
			tr.Failed = tr.Requests
		}
		p.Trials = append(p.Trials, tr)
	}
	return p
}

func TestHTMLTrialsOf(t *testing.T) {
	open := trialsPhaseOf("paced", 100, 98)
	open.Rate = &scenarios.Rate{From: 100, To: 100}
	open.Trials[1].Dropped = 20
	searched := trialsPhaseOf("search", 50, 50)
	searched.Trials[0].Capacity, searched.Trials[1].Capacity = 4875, 5012.6
	adaptive := trialsPhaseOf("measured", 100, 101, 99)
	adaptive.TrialsStop = results.TrialsDecisive
	for _, tc := range []struct {
		name    string
		phases  []*results.PhaseResult
		columns []string
		rows    [][]string
		stops   []string
	}{
		{"no trials: no table", []*results.PhaseResult{{Name: "measured"}}, nil, nil, nil},
		{"one phase: trials numbered from 1",
			[]*results.PhaseResult{{Name: "warmup", Warmup: true}, trialsPhaseOf("measured", 100, 120)},
			[]string{"trial", "requests", "failed", "rps (succeeded/s)", "p50", "p99"},
			[][]string{{"1", "1,000", "0", "100.0", "1.00ms", "10.0ms"}, {"2", "1,000", "0", "120.0", "2.00ms", "20.0ms"}}, nil},
		{"two phases: the phase names its trials",
			[]*results.PhaseResult{trialsPhaseOf("a", 100), trialsPhaseOf("b", 200)},
			[]string{"trial", "requests", "failed", "rps (succeeded/s)", "p50", "p99"},
			[][]string{{"a 1", "1,000", "0", "100.0", "1.00ms", "10.0ms"}, {"b 1", "1,000", "0", "200.0", "1.00ms", "10.0ms"}}, nil},
		{"a trial with nothing succeeded has no latency",
			[]*results.PhaseResult{trialsPhaseOf("measured", 100, 0)},
			[]string{"trial", "requests", "failed", "rps (succeeded/s)", "p50", "p99"},
			[][]string{{"1", "1,000", "0", "100.0", "1.00ms", "10.0ms"}, {"2", "1,000", "1,000", "0.0", "—", "—"}}, nil},
		{"the open model: dropped arrivals",
			[]*results.PhaseResult{open},
			[]string{"trial", "requests", "failed", "rps (succeeded/s)", "p50", "p99", "dropped"},
			[][]string{{"1", "1,000", "0", "100.0", "1.00ms", "10.0ms", "0"}, {"2", "1,000", "0", "98.0", "2.00ms", "20.0ms", "20"}}, nil},
		{"a capacity search: each trial's capacity",
			[]*results.PhaseResult{searched},
			[]string{"trial", "requests", "failed", "rps (succeeded/s)", "p50", "p99", "capacity (rps)"},
			[][]string{{"1", "1,000", "0", "50.0", "1.00ms", "10.0ms", "4,875"}, {"2", "1,000", "0", "50.0", "2.00ms", "20.0ms", "5,013"}}, nil},
		{"adaptive trials say why they stopped",
			[]*results.PhaseResult{adaptive},
			[]string{"trial", "requests", "failed", "rps (succeeded/s)", "p50", "p99"},
			[][]string{{"1", "1,000", "0", "100.0", "1.00ms", "10.0ms"}, {"2", "1,000", "0", "101.0", "2.00ms", "20.0ms"}, {"3", "1,000", "0", "99.0", "3.00ms", "30.0ms"}},
			[]string{"phase measured: adaptive trials stopped after 3 trials: every regressed() rule was decisive (pass or regressed)"}},
	} {
		ht := htmlTrialsOf(&results.CaseRun{ID: "c", Phases: tc.phases})
		if tc.rows == nil {
			if ht != nil {
				t.Errorf("%s: a table %+v, want none", tc.name, ht)
			}
			continue
		}
		if ht == nil {
			t.Errorf("%s: no table", tc.name)
			continue
		}
		if !slices.Equal(ht.Columns, tc.columns) || !slices.EqualFunc(ht.Rows, tc.rows, slices.Equal) || !slices.Equal(ht.Stops, tc.stops) {
			t.Errorf("%s:\n got %q\n     %q\n     %q\nwant %q\n     %q\n     %q", tc.name, ht.Columns, ht.Rows, ht.Stops, tc.columns, tc.rows, tc.stops)
		}
	}
}

// TestTrialsStopText says each reason adaptive trials stop for in words.
func TestTrialsStopText(t *testing.T) {
	for _, tc := range []struct{ stop, want string }{
		{"", ""},
		{results.TrialsDecisive, "phase m: adaptive trials stopped after 2 trials: every regressed() rule was decisive (pass or regressed)"},
		{results.TrialsMax, "phase m: adaptive trials stopped after 2 trials: the maximum ran, and a regressed() rule was still inconclusive"},
		{results.TrialsNoJudge, "phase m: adaptive trials stopped after 2 trials: no baseline to judge regressed() against, so only the minimum ran"},
		{results.TrialsInterrupted, "phase m: adaptive trials stopped after 2 trials: the run was stopped"},
		{"something new", "phase m: adaptive trials stopped after 2 trials: something new"},
	} {
		p := trialsPhaseOf("m", 1, 2)
		p.TrialsStop = tc.stop
		if got := trialsStopText(p); got != tc.want {
			t.Errorf("TrialsStop %q: %q, want %q", tc.stop, got, tc.want)
		}
	}
}

// TestHTMLFixtureTrials finds the fixture's trials in report.html, with
// the figures the console prints for them.
func TestHTMLFixtureTrials(t *testing.T) {
	got := htmlTableRows(t, renderHTML(t, fixtureRun()), "trials")
	if len(got) != len(sloTrialRPS) {
		t.Fatalf("%d trial rows, want %d: %q", len(got), len(sloTrialRPS), got)
	}
	for i, rps := range sloTrialRPS {
		if want := units.FormatNumber(float64(rps), units.Figure); got[i][3] != want || got[i][1] != units.FormatCount(rps*10) {
			t.Errorf("trial %d: %q, want %s requests at %s rps", i+1, got[i], units.FormatCount(rps*10), want)
		}
	}
}
