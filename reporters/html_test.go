package reporters

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func renderHTML(t *testing.T, run *results.Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, run); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// externalRef finds a URL the browser would fetch or follow: in an
// attribute (src, href, xmlns…) or in CSS (url(), @import).
var externalRef = regexp.MustCompile(`(?i)(=\s*"?(https?:)?//)|url\(|@import`)

func TestWriteHTMLGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func() *results.Run
		want []string
	}{
		{"report.golden.html", fixtureRun, []string{
			string(htmlMarks("❌ loadgate: could not be carried out")),
			`aria-label="keepalive concurrency=1: throughput (succeeded/s) and errors/s"`,
			`aria-label="keepalive concurrency=1: latency over time (succeeded requests)"`,
			`aria-label="keepalive concurrency=1: latency by percentile (HDR, log scale)"`,
			`aria-label="keepalive concurrency=1: server CPU (% of one core)"`,
			`aria-label="keepalive concurrency=1: server memory (RSS, process tree)"`,
			`aria-label="hello-http: throughput by concurrency"`,
			`aria-label="hello-http: p99 by concurrency"`,
			"knee keepalive",
			"Knee of keepalive at concurrency=10",
			"<code>testdata/hello.yaml:32</code>",
			"Load generator health, per phase",
			"dial tcp 127.0.0.1:8081: connect: connection refused",
			string(htmlMarks("❌ Could not run: server did not become ready")),
		}},
		{"ab.golden.html", abRun, []string{"A/B verdicts", "baseline case", `aria-label="pr concurrency=10 vs main concurrency=10: latency by percentile (HDR, log scale)"`}},
		{"capacity.golden.html", capacityRun, []string{"Capacity search:", ": p99 by probe rate", "SLO p99", "missed SLO", string(htmlMarks("⚠ loadgate: invalid — not judged")), string(htmlMarks("⛔ Aborted"))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := renderHTML(t, tc.run())
			golden(t, tc.name, []byte(page))
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			if m := externalRef.FindString(page); m != "" {
				t.Errorf("page refers to something outside itself: %q", m)
			}
			if strings.Contains(page, "<script") {
				t.Error("page carries a script")
			}
		})
	}
}

// TestHTMLHeadlineMatchesMarkdown keeps both reports' verdicts in step:
// an interrupted, aborted or not-carried-out run is never "passed".
func TestHTMLHeadlineMatchesMarkdown(t *testing.T) {
	interrupted := fixtureRun()
	interrupted.Interrupted, interrupted.Passed = true, false
	passed := abRun()
	passed.Passed = true
	for name, run := range map[string]*results.Run{"fixture": fixtureRun(), "ab": passed, "capacity": capacityRun(), "interrupted": interrupted} {
		var md bytes.Buffer
		if err := WriteMarkdown(&md, run); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(md.String(), "\n")
		text, _ := htmlHeadline(run)
		if "## "+mdText(text) != first && "## "+text != first {
			t.Errorf("%s: HTML headline %q, Markdown %q", name, text, first)
		}
		if runOutcome(run) != outcomePassed && strings.Contains(text, "passed") {
			t.Errorf("%s: %q shows a run that did not pass as passed", name, text)
		}
	}
}

// bigRun is a 20-case matrix run of five minutes per case, server
// monitored, the size a report must handle within 1 MiB.
func bigRun() *results.Run {
	sc := &scenarios.Scenario{File: "big.yaml", Name: "big-matrix", Thresholds: fixtureThresholds()}
	res := &results.ScenarioResult{Scenario: sc, Start: t0, End: t0.Add(2 * time.Hour)}
	levels := []int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
	for i := range 20 {
		spec := caseSpec{target: []string{"keepalive", "close"}[i/10], concurrency: levels[i%10],
			rps: 500 * (1 + int64(i%10)), base: time.Millisecond, rssMiB: 100}
		if i%7 == 3 {
			spec.errs = results.ErrorCounts{Connect: 7, Timeout: 2}
		}
		start := t0.Add(time.Duration(i) * 6 * time.Minute)
		cr := &results.CaseResult{
			ID: fmt.Sprintf("%s concurrency=%d", spec.target, spec.concurrency), Target: spec.target,
			Matrix: []scenarios.MatrixValue{{Key: "concurrency", Text: fmt.Sprint(spec.concurrency), Value: spec.concurrency}},
			Phases: []*results.PhaseResult{fixturePhase(spec, "measured", false, start, 300, spec.rps)},
		}
		cr.Server, cr.ServerName = fixtureServer(spec, cr.Phases[0]), "server"
		res.Cases = append(res.Cases, cr)
	}
	return results.NewRun(fixtureMeta(), []results.ScenarioInput{{Result: res}})
}

func TestHTMLSizeForTwentyCases(t *testing.T) {
	page := renderHTML(t, bigRun())
	const limit = 1 << 20
	if len(page) >= limit {
		t.Errorf("report of 20 cases is %d bytes, want < %d", len(page), limit)
	}
	if n := strings.Count(page, `<svg class="chart"`); n != 20*5+2 {
		t.Errorf("%d charts, want %d (five per case, two for the sweep)", n, 20*5+2)
	}
	t.Logf("20-case report: %d bytes", len(page))
}

func TestHTMLEscapesHostileText(t *testing.T) {
	run, _, _ := hostileRun()
	page := renderHTML(t, run)
	if strings.Contains(page, "<img") {
		t.Error("report.html renders HTML from user text")
	}
	assertNoRaw(t, "report.html", page)
	if !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the hostile text is missing instead of escaped")
	}
	golden(t, "hostile.golden.html", []byte(page))
}

func TestNiceCeilAndTicks(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{{0, 1}, {0.7, 1}, {1, 1}, {1.1, 2}, {2.2, 2.5}, {3, 5}, {7, 10}, {8500, 10000}, {12, 20}} {
		if got := niceAxis(tc.in); got != tc.want {
			t.Errorf("niceAxis(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   float64
		want string
	}{{0, "0"}, {0.25, "0.25"}, {2500, "2500"}, {12000, "12k"}, {1.5e6, "1.5M"}} {
		if got := axisNum(tc.in); got != tc.want {
			t.Errorf("axisNum(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
