package reporters

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/loadgate/loadgate/results"
)

func TestWriteMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.golden.md", b.Bytes())

	md := b.String()
	for _, want := range []string{
		"## ❌ loadgate: could not be carried out",
		"📈 **Knee** `keepalive` at concurrency=10",
		"📈 **Knee** `close`: none up to concurrency=100",
		"#### Side by side",
		"xychart-beta",
		"| ⚠️ | `close concurrency=100` |",
		"| ⏭ |",
		"> ❌ **Could not run:**",
		// The flow: iterations, then a row per step with its errors.
		"#### Flow `shop`\n\nIterations: 10,000 (30 failed) · 997.0/s succeeded · p50 8.89ms · p99 11.9ms",
		"| `list` | 10,000 | 997.0 | 2.96ms | 3.96ms | 30 (extract 30) |",
		"| `order` | 9,970 | 997.0 | 4.44ms | 5.94ms | 0 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
}

// TestMarkdownChartIsSmall checks that every chart, however long its case
// ran, has at most maxChartPoints points, one x label per value, and that
// long cases are charted at all and not squeezed to a handful of points.
func TestMarkdownChartIsSmall(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	longRun := func(phases ...int) *results.Run {
		var ps []*results.PhaseResult
		start := t0
		for _, secs := range phases {
			var series []results.Second
			for s := range secs {
				series = append(series, sec(s, int64(100+s%7), 0, 1+s%5))
			}
			elapsed := time.Duration(secs) * time.Second
			ps = append(ps, &results.PhaseResult{Start: start, Elapsed: elapsed, Series: series})
			start = start.Add(elapsed)
		}
		return results.NewRun(results.Meta{}, []results.ScenarioInput{{Result: &results.ScenarioResult{Start: t0,
			Cases: []*results.CaseResult{{ID: "long", Target: "long", Phases: ps}}}}})
	}
	tests := []struct {
		name      string
		run       *results.Run
		charts    int // requests/s and p99 per charted case
		minPoints int // of the longest chart: downsampling keeps detail
	}{
		{"the fixture: short cases, charted whole", fixtureRun(), 24, 30},
		{"one phase of 20 minutes", longRun(1200), 2, maxChartPoints / 2},
		{"three phases, 61 s in all", longRun(20, 20, 21), 2, maxChartPoints / 2},
		{"more phases than points", longRun(slices.Repeat([]int{2}, maxChartPoints+5)...), 2, maxChartPoints / 2},
	}
	chartRe := regexp.MustCompile("(?s)```mermaid\n.*?x-axis \"[^\"]*\" \\[([^\\]]*)\\].*?\n    line \\[([^\\]]*)\\]\n```")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteMarkdown(&b, tc.run); err != nil {
				t.Fatal(err)
			}
			charts := chartRe.FindAllStringSubmatch(b.String(), -1)
			if len(charts) != tc.charts {
				t.Fatalf("%d charts, want %d", len(charts), tc.charts)
			}
			longest := 0
			for _, c := range charts {
				labels, values := len(strings.Split(c[1], ", ")), len(strings.Split(c[2], ", "))
				if labels != values {
					t.Errorf("chart has %d x labels for %d values", labels, values)
				}
				if values > maxChartPoints {
					t.Errorf("chart has %d points, want at most %d", values, maxChartPoints)
				}
				longest = max(longest, values)
			}
			if longest < tc.minPoints {
				t.Errorf("longest chart has %d points, want at least %d", longest, tc.minPoints)
			}
		})
	}
}

func TestKneeIndex(t *testing.T) {
	tests := []struct {
		name string
		rps  []float64
		want int
	}{
		{"flat from the start", []float64{1000, 1050, 1100}, 0},
		{"knee in the middle", []float64{1000, 8000, 8500}, 1},
		{"exactly 10% growth is still growth", []float64{1000, 1100, 1210}, -1},
		{"throughput drops", []float64{1000, 5000, 4000, 9000}, 1},
		{"keeps growing", []float64{800, 5000, 9000}, -1},
		{"too short to judge", []float64{1000}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kneeIndex(tt.rps); got != tt.want {
				t.Errorf("kneeIndex(%v) = %d, want %d", tt.rps, got, tt.want)
			}
		})
	}
}

func TestFindKneesNeedsThreeNumericLevels(t *testing.T) {
	mk := func(target string, level any, rps float64) *results.CaseRun {
		return &results.CaseRun{ID: target, Target: target, Matrix: []results.MatrixEntry{{Key: "concurrency", Value: level}},
			Stats: results.Stats{RPS: rps}}
	}
	sr := &results.ScenarioRun{Cases: []*results.CaseRun{
		mk("a", int64(1), 100), mk("a", int64(10), 900), // two levels: no sweep
		mk("b", "low", 100), mk("b", "mid", 200), mk("b", "high", 300), // not numeric
		mk("c", int64(100), 1000), mk("c", int64(1), 100), mk("c", int64(10), 990), // unordered
	}}
	knees := findKnees(sr)
	if len(knees) != 1 || knees[0].target != "c" {
		t.Fatalf("knees = %+v, want one for target c", knees)
	}
	if got := kneeLevel(knees[0].at); got != int64(10) {
		t.Errorf("knee at %v, want 10", got)
	}
}

func TestDownsample(t *testing.T) {
	seg := func(from, n int) []chartPoint {
		out := make([]chartPoint, n)
		for i := range out {
			at := time.Duration(from+i) * time.Second
			out[i] = chartPoint{at: at, succeeded: 10, seconds: 1, p99: at / 1000}
		}
		return out
	}
	pt := func(from, secs int, p99 time.Duration) chartPoint {
		return chartPoint{at: time.Duration(from) * time.Second, succeeded: int64(10 * secs), seconds: int64(secs), p99: p99}
	}
	tests := []struct {
		name  string
		segs  [][]chartPoint
		limit int
		want  []chartPoint
	}{
		{"short series kept", [][]chartPoint{seg(0, 3)}, 60, seg(0, 3)},
		{"nothing to draw", nil, 60, nil},
		{
			"one phase: the remainder is a shorter chunk, still per second",
			[][]chartPoint{seg(0, 7)}, 3,
			[]chartPoint{pt(0, 3, 2*time.Millisecond), pt(3, 3, 5*time.Millisecond), pt(6, 1, 6*time.Millisecond)},
		},
		{
			"chunks never straddle two phases",
			[][]chartPoint{seg(0, 4), seg(10, 4)}, 4,
			[]chartPoint{pt(0, 2, time.Millisecond), pt(2, 2, 3*time.Millisecond), pt(10, 2, 11*time.Millisecond), pt(12, 2, 13*time.Millisecond)},
		},
		{
			"odd phases grow the chunk until the limit holds",
			[][]chartPoint{seg(0, 3), seg(10, 3)}, 3,
			[]chartPoint{pt(0, 3, 2*time.Millisecond), pt(10, 3, 12*time.Millisecond)},
		},
		{
			"more phases than points: merged across phases",
			[][]chartPoint{seg(0, 1), seg(5, 1), seg(9, 1)}, 2,
			[]chartPoint{pt(0, 2, 5*time.Millisecond), pt(9, 1, 9*time.Millisecond)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := downsample(tt.segs, tt.limit)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(chartPoint{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("downsample (-want +got):\n%s", diff)
			}
			if tt.limit > 0 && len(got) > tt.limit {
				t.Errorf("%d points, limit %d", len(got), tt.limit)
			}
		})
	}
}

func TestFormatHelpers(t *testing.T) {
	// Durations, counts and rates are units' (units/format_test.go); a
	// report's own figures are these.
	tests := []struct{ got, want string }{
		{fmtPct(0.0012), "0.12%"},
		{fmtSeconds(-time.Second), "0.000"},
		{matrixText(2.5), "2.5"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestWriteMarkdownCaseError(t *testing.T) {
	run := results.NewRun(results.Meta{}, []results.ScenarioInput{{Result: &results.ScenarioResult{
		Cases: []*results.CaseResult{{ID: "api", Target: "api", Err: "no request completed"}},
	}}})
	var b bytes.Buffer
	if err := WriteMarkdown(&b, run); err != nil {
		t.Fatal(err)
	}
	if want := "- ❌ `api` could not run: no request completed\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
	if !strings.HasPrefix(b.String(), "## ❌ loadgate: could not be carried out") {
		t.Errorf("a case that could not run must fail the headline:\n%s", b.String())
	}
}

// sec is a second of a phase's series with completed requests of which
// errors failed, the succeeded ones' p99 in milliseconds.
func sec(at int, completed, errors int64, p99ms int) results.Second {
	return results.Second{At: at, Completed: completed, Errors: errors, P99: time.Duration(p99ms) * time.Millisecond}
}

func TestCaseTimeline(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	phase := func(start time.Duration, elapsed time.Duration, series ...results.Second) *results.PhaseResult {
		return &results.PhaseResult{Start: t0.Add(start), Elapsed: elapsed, Series: series}
	}
	pt := func(at int, ok, all int64, p99ms int) chartPoint {
		return chartPoint{at: time.Duration(at) * time.Second, succeeded: ok, attempted: all, seconds: 1,
			p99: time.Duration(p99ms) * time.Millisecond}
	}
	tests := []struct {
		name   string
		phases []*results.PhaseResult
		want   [][]chartPoint
	}{
		{
			"the partial last second is dropped",
			[]*results.PhaseResult{phase(0, 2500*time.Millisecond, sec(0, 100, 0, 2), sec(1, 100, 0, 2), sec(2, 40, 0, 2))},
			[][]chartPoint{{pt(0, 100, 100, 2), pt(1, 100, 100, 2)}},
		},
		{
			"a second that ends exactly at the end is whole",
			[]*results.PhaseResult{phase(0, 2*time.Second, sec(0, 100, 0, 2), sec(1, 100, 0, 2))},
			[][]chartPoint{{pt(0, 100, 100, 2), pt(1, 100, 100, 2)}},
		},
		{
			"a straggler point after the deadline is dropped",
			[]*results.PhaseResult{phase(0, 2*time.Second, sec(0, 100, 0, 2), sec(1, 100, 0, 2), sec(2, 3, 0, 9))},
			[][]chartPoint{{pt(0, 100, 100, 2), pt(1, 100, 100, 2)}},
		},
		{
			"a dead target counts no successes, whatever it attempted",
			[]*results.PhaseResult{phase(0, 2*time.Second, sec(0, 30000, 30000, 0), sec(1, 31000, 31000, 0))},
			[][]chartPoint{{pt(0, 0, 30000, 0), pt(1, 0, 31000, 0)}},
		},
		{
			"phases sit at their own start, labels stay increasing",
			[]*results.PhaseResult{
				phase(0, 1900*time.Millisecond, sec(0, 10, 1, 1), sec(1, 10, 0, 1)),
				phase(1950*time.Millisecond, 2*time.Second, sec(0, 20, 0, 3), sec(1, 20, 0, 3)),
			},
			[][]chartPoint{{pt(0, 9, 10, 1)}, {
				{at: 1950 * time.Millisecond, succeeded: 20, attempted: 20, seconds: 1, p99: 3 * time.Millisecond},
				{at: 2950 * time.Millisecond, succeeded: 20, attempted: 20, seconds: 1, p99: 3 * time.Millisecond},
			}},
		},
		{
			"a phase shorter than a second has nothing whole to plot",
			[]*results.PhaseResult{phase(0, 800*time.Millisecond, sec(0, 80, 0, 2))},
			nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := caseTimeline(&results.CaseRun{Phases: tt.phases})
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(chartPoint{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("caseTimeline (-want +got):\n%s", diff)
			}
			var last int64 = -1
			for _, seg := range got {
				for _, p := range seg {
					if p.label() <= last {
						t.Errorf("label %d after %d: labels must increase", p.label(), last)
					}
					last = p.label()
				}
			}
		})
	}
}

// chartRun is a scenario of n healthy cases and, when dead, one more whose
// every request failed; every phase lasts 3.5 s.
func chartRun(n int, dead bool) *results.Run {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	mk := func(id string, i int, failed bool) *results.CaseResult {
		var series []results.Second
		for s := 0; s < 4; s++ {
			switch {
			case failed:
				series = append(series, sec(s, 30000, 30000, 0))
			case s == 3:
				series = append(series, sec(s, 500, 0, 2)) // the partial last second
			default:
				series = append(series, sec(s, 1000+int64(100*i), 0, 2+s))
			}
		}
		start := t0.Add(time.Duration(4*i) * time.Second)
		return &results.CaseResult{ID: id, Target: id, Phases: []*results.PhaseResult{{
			Name: "measured", Start: start, End: start.Add(3500 * time.Millisecond),
			Elapsed: 3500 * time.Millisecond, Series: series}}}
	}
	var cases []*results.CaseResult
	for i := 0; i < n; i++ {
		cases = append(cases, mk(fmt.Sprintf("api-%02d", i), i, false))
	}
	if dead {
		cases = append(cases, mk("dead", n, true))
	}
	return results.NewRun(results.Meta{}, []results.ScenarioInput{{Result: &results.ScenarioResult{Start: t0, Cases: cases}}})
}

func TestMarkdownChartsPerCase(t *testing.T) {
	tests := []struct {
		name   string
		run    *results.Run
		golden string
		want   []string
		absent []string
	}{
		{
			name: "a healthy and a dead target", run: chartRun(1, true), golden: "charts-dead.golden.md",
			want: []string{
				`title "api-00: succeeded requests/s"`,
				`title "dead: succeeded requests/s (100.0% failed)"`,
				`line [0.0, 0.0, 0.0]`, // the dead target at the bottom, not its 30,000 attempts/s
				"_`dead`: no request succeeded, so there is no latency to plot._",
				`x-axis "seconds since the case started" ["0", "1", "2"]`,
				`y-axis "requests/s" 0 --> 1000`, // shared by both cases
			},
			absent: []string{"30000", "500.0", `"3"`},
		},
		{
			name: "more cases than are charted", run: chartRun(maxChartedCases+3, false), golden: "charts-many.golden.md",
			want: []string{
				fmt.Sprintf("> Charts of the first %d of %d cases", maxChartedCases, maxChartedCases+3),
				fmt.Sprintf(`title "api-%02d: p99 latency"`, maxChartedCases-1),
				`y-axis "requests/s" 0 --> 2500`,
			},
			absent: []string{fmt.Sprintf(`title "api-%02d:`, maxChartedCases)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteMarkdown(&b, tt.run); err != nil {
				t.Fatal(err)
			}
			_, charts, _ := strings.Cut(b.String(), "#### Over time")
			golden(t, tt.golden, []byte("#### Over time"+charts))
			for _, w := range tt.want {
				if !strings.Contains(charts, w) {
					t.Errorf("charts lack %q", w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(charts, a) {
					t.Errorf("charts contain %q", a)
				}
			}
		})
	}
}

func TestNiceCeil(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0, 1}, {1, 1}, {1.1, 1.2}, {2.1, 2.5}, {3, 3}, {7, 8}, {9, 10}, {1000, 1000}, {1001, 1200}, {0.03, 0.03}, {0.031, 0.04}, {31046, 40000}, {55475, 60000}, {101, 120}, {0.0011, 0.0012},
	}
	for _, tt := range tests {
		if got := niceCeil(tt.in); got != tt.want {
			t.Errorf("niceCeil(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownChartLongPhaseAveragesWholeSeconds(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var series []results.Second
	for s := 0; s < 150; s++ {
		series = append(series, sec(s, int64(100+s%3), 0, 1)) // 100, 101, 102: a mean of 101 per chunk
	}
	series = append(series, sec(150, 7, 0, 1)) // partial: the phase lasted 150.4 s
	run := results.NewRun(results.Meta{}, []results.ScenarioInput{{Result: &results.ScenarioResult{Start: t0, Cases: []*results.CaseResult{{
		ID: "long", Target: "long", Phases: []*results.PhaseResult{{Start: t0, Elapsed: 150400 * time.Millisecond, Series: series}},
	}}}}})
	var b bytes.Buffer
	if err := WriteMarkdown(&b, run); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		`x-axis "seconds since the case started (3 s a point)" ["0", "3", "6",`,
		`, "141", "144", "147"]`,
		"line [101.0, 101.0, 101.0,",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("chart lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, `"150"`) {
		t.Error("the partial last second is charted")
	}
}
