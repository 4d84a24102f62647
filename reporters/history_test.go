package reporters

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/history"
)

func TestWriteHistoryGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHistory(&b, historyAnalyses(), historyOptions()); err != nil {
		t.Fatal(err)
	}
	golden(t, "history/show.golden.txt", b.Bytes())
	for _, want := range []string{
		"between a1b2c3d (good) and e4f5a6b (first worse), 3 commits\n",
		"between 6071829 (good) and 718293a (first better)\n",
		"window 50 runs, p-value below 0.001, minimum magnitude 2%",
		"no change point: one level",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("history show lacks %q", want)
		}
	}
}

func TestWriteHistoryHTMLGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHistoryHTML(&b, historyAnalyses(), historyOptions()); err != nil {
		t.Fatal(err)
	}
	golden(t, "history/show.golden.html", b.Bytes())
	page := b.String()
	for _, want := range []string{
		`<g class="cp worse">`, `<g class="cp better">`, `class="band"`, `class="lvl"`,
		`<a href="https://github.com/acme/api/commit/e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("history.html lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "NaN") {
		t.Error("history.html holds a script or a NaN coordinate")
	}
}

// Every segment and change point reaches the text: the counts of runs
// add up to the series, and there is a line per change.
func TestWriteHistoryCountsEveryRun(t *testing.T) {
	as := historyAnalyses()
	var b bytes.Buffer
	if err := WriteHistory(&b, as, HistoryOptions{}); err != nil {
		t.Fatal(err)
	}
	changes := 0
	for _, a := range as {
		runs := 0
		for _, s := range a.Segments {
			runs += s.Runs()
		}
		if runs != len(a.Series.Points) {
			t.Errorf("%s: segments hold %d runs of %d", seriesTitle(a.Series), runs, len(a.Series.Points))
		}
		changes += len(a.Changes)
	}
	if got := strings.Count(b.String(), "  change "); got != changes {
		t.Errorf("%d change lines, want %d", got, changes)
	}
	if !strings.Contains(b.String(), "window 0 runs") {
		t.Errorf("zero options are still named in the header:\n%s", b.String())
	}
}

func TestChangeSpan(t *testing.T) {
	good := &history.Entry{Commit: "a1b2c3d4e5f6"}
	linked := &history.Entry{Commit: "e4f5a6b7c8d9", Parent: good.Commit}
	apart := &history.Entry{Commit: "e4f5a6b7c8d9", Parent: "9999999999"}
	unknown := func(_, _ *history.Entry) (int, bool) { return 0, false }
	tests := []struct {
		name    string
		ch      history.Change
		commits func(_, _ *history.Entry) (int, bool)
		want    string
	}{
		{"git counts them", history.Change{Worse: true, Good: good, FirstChanged: apart},
			func(_, _ *history.Entry) (int, bool) { return 3, true },
			"between a1b2c3d (good) and e4f5a6b (first worse), 3 commits"},
		{"one commit, in the singular", history.Change{Worse: true, Good: good, FirstChanged: apart},
			func(_, _ *history.Entry) (int, bool) { return 1, true },
			"between a1b2c3d (good) and e4f5a6b (first worse), 1 commit"},
		{"an improvement", history.Change{Good: good, FirstChanged: apart}, nil,
			"between a1b2c3d (good) and e4f5a6b (first better)"},
		{"git does not know: no count", history.Change{Worse: true, Good: good, FirstChanged: apart}, unknown,
			"between a1b2c3d (good) and e4f5a6b (first worse)"},
		{"no git, but the parent is the good commit", history.Change{Worse: true, Good: good, FirstChanged: linked}, nil,
			"between a1b2c3d (good) and e4f5a6b (first worse), 1 commit"},
		{"commits unrecorded", history.Change{Worse: true, Good: &history.Entry{}, FirstChanged: &history.Entry{}}, nil,
			"between ? (good) and ? (first worse)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := changeSpan(tt.ch, tt.commits); got != tt.want {
				t.Errorf("changeSpan = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMagnitudeText(t *testing.T) {
	for _, tt := range []struct {
		m    float64
		want string
	}{
		{0.2, "+20.0%"},    // worse latency
		{-0.125, "−12.5%"}, // a true minus sign
		{0, "+0.0%"},
	} {
		if got := magnitudeText(tt.m); got != tt.want {
			t.Errorf("magnitudeText(%v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}

// A store with nothing to show still says so, in both outputs.
func TestWriteHistoryEmpty(t *testing.T) {
	var text, page bytes.Buffer
	if err := WriteHistory(&text, nil, historyOptions()); err != nil {
		t.Fatal(err)
	}
	if err := WriteHistoryHTML(&page, nil, historyOptions()); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "html": page.String()} {
		if !strings.Contains(out, "0 series") || !strings.Contains(out, "No series to show") {
			t.Errorf("%s of no series:\n%s", name, out)
		}
	}
}

// One run and no change point: a chart with one dot and a level across
// the plot, and no table of changes.
func TestWriteHistoryHTMLOnePoint(t *testing.T) {
	e := historyEntry(historyEnvB, historyT0, "c0ffee00112233445566778899aabbccddeeff00", 2100, 2.4e6, 0)
	s := history.BuildSeries([]*history.Entry{e}, history.Filter{Metric: "p99"})[0]
	var b bytes.Buffer
	if err := WriteHistoryHTML(&b, []*history.Analysis{cutAt(s, nil, 0)}, HistoryOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "<circle") || !strings.Contains(page, `class="lvl" d="M64 `) {
		t.Errorf("one run draws no dot or no level line:\n%s", page)
	}
	if strings.Contains(page, `class="changes"`) || !strings.Contains(page, "No change point: one level, 2.4ms") {
		t.Errorf("one run without a change:\n%s", page)
	}
	if strings.Contains(page, "NaN") || strings.Contains(page, "Inf") {
		t.Errorf("one run draws a coordinate that is not a number")
	}
}

func TestHistoryEscapesNames(t *testing.T) {
	e := historyEntry(historyEnvA, historyT0, historyCommits[0], 1000, 1e6, 0)
	e.Scenario = `<script>alert("x")</script>`
	e.Cases[0].ID = "say \"hi\"\x1b[31m"
	e.Commit = `"><script>`
	as := []*history.Analysis{cutAt(history.BuildSeries([]*history.Entry{e}, history.Filter{Metric: "rps"})[0], nil, 0)}
	o := HistoryOptions{CommitURL: func(sha string) string { return "javascript:alert(1)//" + sha }}

	var page bytes.Buffer
	if err := WriteHistoryHTML(&page, as, o); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", `alert("x")`, `say "hi"`, "javascript:", "\x1b"} {
		if strings.Contains(page.String(), bad) {
			t.Errorf("history.html holds %q", bad)
		}
	}
	if !strings.Contains(page.String(), "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Errorf("history.html does not show the scenario's name escaped")
	}

	var text bytes.Buffer
	if err := WriteHistory(&text, as, o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "\x1b") || !strings.Contains(text.String(), `say "hi"\x1b[31m`) {
		t.Errorf("history show lets a control character through:\n%s", text.String())
	}
}

func TestCommitHref(t *testing.T) {
	for _, tt := range []struct {
		name string
		link func(string) string
		want string
	}{
		{"no linker", nil, ""},
		{"no page", func(string) string { return "" }, ""},
		{"https", func(s string) string { return "https://git.example/c/" + s }, "https://git.example/c/abc"},
		{"a script", func(s string) string { return "javascript:alert(1)" }, ""},
		{"a relative path", func(s string) string { return "/c/" + s }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := commitHref(tt.link, "abc"); got != tt.want {
				t.Errorf("commitHref = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteHistoryExportGolden(t *testing.T) {
	series := history.BuildSeries(historyEntries(), history.Filter{})
	for _, tt := range []struct{ format, file string }{
		{"csv", "history/export.golden.csv"},
		{"otava", "history/otava.golden.csv"},
		{"bencher", "history/bencher.golden.json"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteHistoryExport(&b, series, tt.format); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file, b.Bytes())
		})
	}
}

// The long CSV reads back with a CSV reader that skips comments: one
// record per run and series, ten fields each.
func TestHistoryExportCSVReadsBack(t *testing.T) {
	series := history.BuildSeries(historyEntries(), history.Filter{})
	series[0].Key.Scenario = "#1, \"first\""
	var b bytes.Buffer
	if err := WriteHistoryExport(&b, series, "csv"); err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(&b)
	r.Comment = '#'
	records, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, s := range series {
		points += len(s.Points)
	}
	if len(records) != points+1 || len(records[0]) != 10 {
		t.Fatalf("%d records of %d fields, want %d of 10", len(records), len(records[0]), points+1)
	}
	if got := records[1][0]; got != series[0].Key.Scenario {
		t.Errorf("scenario read back as %q", got)
	}
	if got := records[1][9]; strings.Count(got, ";") != 4 {
		t.Errorf("trials %q, want five", got)
	}
}

// The Otava table has a row per run, every row as wide as the header, and
// machine B's run leaves machine A's columns empty.
func TestHistoryExportOtavaShape(t *testing.T) {
	series := history.BuildSeries(historyEntries(), history.Filter{})
	var b bytes.Buffer
	if err := WriteHistoryExport(&b, series, "otava"); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 1+13 || len(records[0]) != 2+len(series) {
		t.Fatalf("%d rows of %d columns, want 14 of %d", len(records), len(records[0]), 2+len(series))
	}
	if records[0][0] != "time" || records[0][1] != "commit" || records[0][2] != "hello [env "+historyEnvA.ID()+"].rps" {
		t.Errorf("header %q", records[0])
	}
	if records[1][0] != "2026-03-01T06:00:00Z" || records[13][2] != "" {
		t.Errorf("first row %q, last %q", records[1], records[13])
	}
}

func TestHistoryExportBencherShape(t *testing.T) {
	series := history.BuildSeries(historyEntries(), history.Filter{})
	var b bytes.Buffer
	if err := WriteHistoryExport(&b, series, "bencher"); err != nil {
		t.Fatal(err)
	}
	var bmf map[string]map[string]struct {
		Value *float64 `json:"value"`
		Lower *float64 `json:"lower_value"`
		Upper *float64 `json:"upper_value"`
	}
	if err := json.Unmarshal(b.Bytes(), &bmf); err != nil {
		t.Fatal(err)
	}
	m := bmf["gate/hello [env "+historyEnvA.ID()+"]"]["p99"]
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-6 }
	if !near(m.Value, 1.2e6*0.99) || !near(m.Lower, 1.2e6*0.99*0.98) || !near(m.Upper, 1.2e6*0.99*1.03) {
		t.Errorf("newest p99 of machine A = %+v", m)
	}
	if p90 := bmf["gate/hello [env "+historyEnvB.ID()+"]"]["p90"]; p90.Value == nil || p90.Lower != nil {
		t.Errorf("p90 without trials = %+v, want a value and no bounds", p90)
	}
}

func TestHistoryExportUnknownFormat(t *testing.T) {
	err := WriteHistoryExport(&bytes.Buffer{}, nil, "xlsx")
	if err == nil || !strings.Contains(err.Error(), `"xlsx"`) || !strings.Contains(err.Error(), "csv, otava, bencher") {
		t.Fatalf("err = %v", err)
	}
}

func TestSeriesNames(t *testing.T) {
	key := func(scenario, c, metric, env, load string) *history.Series {
		return &history.Series{Key: history.SeriesKey{Scenario: scenario, Case: c, Metric: metric, Env: env, Load: load}}
	}
	tests := []struct {
		name   string
		series []*history.Series
		want   []seriesName
	}{
		{"one scenario, one machine: case.metric",
			[]*history.Series{key("gate", "a", "rps", "e1", "l1"), key("gate", "b", "rps", "e1", "l2")},
			[]seriesName{{"a.rps", "gate/a"}, {"b.rps", "gate/b"}}},
		{"two scenarios: the scenario prefixes the column",
			[]*history.Series{key("gate", "a", "rps", "e1", "l1"), key("soak", "a", "rps", "e1", "l1")},
			[]seriesName{{"gate.a.rps", "gate/a"}, {"soak.a.rps", "soak/a"}}},
		{"a case on two machines names the machine",
			[]*history.Series{key("gate", "a", "p99", "e1", "l1"), key("gate", "a", "p99", "e2", "l1"), key("gate", "b", "p99", "e1", "l1")},
			[]seriesName{{"a [env e1].p99", "gate/a [env e1]"}, {"a [env e2].p99", "gate/a [env e2]"}, {"b.p99", "gate/b"}}},
		{"a changed load test names the load",
			[]*history.Series{key("gate", "a", "p99", "e1", "l1"), key("gate", "a", "p99", "e1", "l2")},
			[]seriesName{{"a [load l1].p99", "gate/a [load l1]"}, {"a [load l2].p99", "gate/a [load l2]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := seriesNames(tt.series)
			for i := range tt.want {
				if got[i] != tt.want[i] {
					t.Errorf("series %d named %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// docs/history.md quotes `history show`: every line of its excerpt is a
// line the golden output holds, so the docs cannot drift from the output.
func TestHistoryDocsQuoteTheOutput(t *testing.T) {
	doc, err := os.ReadFile("../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## Reading `history show`")
	_, rest, ok2 := strings.Cut(rest, "```text\n")
	excerpt, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/history.md has no excerpt of history show")
	}
	out, err := os.ReadFile("testdata/history/show.golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		lines[l] = true
	}
	for _, l := range strings.Split(excerpt, "\n") {
		if !lines[l] {
			t.Errorf("docs/history.md quotes a line history show does not print: %q", l)
		}
	}
}
