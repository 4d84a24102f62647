package reporters

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// kneeGrowth is the throughput gain below which adding concurrency is no
// longer worth it: past this point extra clients mostly add queueing delay.
const kneeGrowth = 1.10

// kneeKey is the matrix key whose values form a concurrency sweep.
const kneeKey = "concurrency"

// kneeIndex returns the index of the first level after which rps grows by
// less than kneeGrowth, or -1 when throughput keeps growing at every step.
// rps is ordered by rising concurrency.
func kneeIndex(rps []float64) int {
	for i := 0; i+1 < len(rps); i++ {
		if rps[i+1] < rps[i]*kneeGrowth {
			return i
		}
	}
	return -1
}

// knee is the result of one concurrency sweep: one target with the other
// matrix keys held fixed.
type knee struct {
	target string
	fixed  string             // the other matrix keys, "" when concurrency is the only one
	at     *results.CaseRun   // the knee's case; nil when there is none
	next   *results.CaseRun   // the level after the knee
	levels []float64          // the swept levels, ascending
	cases  []*results.CaseRun // in the order of levels
}

// note is the sentence the Markdown report prints for the sweep.
func (k knee) note() string {
	who := mdCode(k.target)
	if k.fixed != "" {
		who += " (" + mdText(k.fixed) + ")"
	}
	if k.at == nil {
		last := k.levels[len(k.levels)-1]
		return fmt.Sprintf("> 📈 **Knee** %s: none up to %s=%s — throughput grows by 10%% or more at every step.\n",
			who, kneeKey, strconv.FormatFloat(last, 'f', -1, 64))
	}
	a, n := k.at.Stats.RPS, k.next.Stats.RPS
	growth := 0.0
	if a > 0 {
		growth = (n/a - 1) * 100
	}
	return fmt.Sprintf("> 📈 **Knee** %s at %s=%s: beyond it throughput grows by less than 10%% (%s → %s rps, %+.1f%%) while p99 goes %s → %s.\n",
		who, kneeKey, mdText(matrixText(kneeLevel(k.at))), units.FormatNumber(a, units.Figure), units.FormatNumber(n, units.Figure), growth,
		units.FormatDuration(k.at.Stats.Latency.P99, units.Figure), units.FormatDuration(k.next.Stats.Latency.P99, units.Figure))
}

func kneeLevel(c *results.CaseRun) any {
	for _, m := range c.Matrix {
		if m.Key == kneeKey {
			return m.Value
		}
	}
	return nil
}

// findKnees finds every concurrency sweep of at least three numeric levels
// in the scenario and locates its knee.
func findKnees(sr *results.ScenarioRun) []knee {
	type sweep struct {
		target, fixed string
		byLevel       map[float64]*results.CaseRun
	}
	var order []string
	sweeps := make(map[string]*sweep)
	for _, c := range sr.Cases {
		level, ok := 0.0, false
		var others []results.MatrixEntry
		for _, m := range c.Matrix {
			if m.Key == kneeKey {
				level, ok = matrixNumber(m.Value)
			} else {
				others = append(others, m)
			}
		}
		if !ok || c.Error != "" {
			continue
		}
		fixed := matrixLabel(others)
		key := c.Target + "\x00" + fixed
		s := sweeps[key]
		if s == nil {
			s = &sweep{target: c.Target, fixed: fixed, byLevel: make(map[float64]*results.CaseRun)}
			sweeps[key] = s
			order = append(order, key)
		}
		if _, dup := s.byLevel[level]; !dup {
			s.byLevel[level] = c
		}
	}
	var out []knee
	for _, key := range order {
		s := sweeps[key]
		if len(s.byLevel) < 3 {
			continue
		}
		k := knee{target: s.target, fixed: s.fixed}
		for l := range s.byLevel {
			k.levels = append(k.levels, l)
		}
		sort.Float64s(k.levels)
		rps := make([]float64, len(k.levels))
		for i, l := range k.levels {
			k.cases = append(k.cases, s.byLevel[l])
			rps[i] = s.byLevel[l].Stats.RPS
		}
		if i := kneeIndex(rps); i >= 0 {
			k.at, k.next = k.cases[i], k.cases[i+1]
		}
		out = append(out, k)
	}
	return out
}

// maxChartPoints keeps Mermaid charts legible and the step summary small.
const maxChartPoints = 60

// maxChartedCases caps the cases charted per scenario. Each case costs
// two or three charts (about 1.5 KB of Markdown); a large matrix would
// otherwise bury the tables under charts and, with several scenarios,
// approach GitHub's step summary limit (stepSummaryLimit in internal/cli).
const maxChartedCases = 12

// chartPoint is one point of a case's timeline.
type chartPoint struct {
	at        time.Duration // since the case's first measured phase started
	succeeded int64         // requests that succeeded in the covered seconds
	attempted int64         // requests that completed, succeeded or failed
	seconds   int64         // whole seconds (or server usage samples) covered
	p99       time.Duration // worst p99 of the covered seconds with a success
	cpu       float64       // server CPU, percent of one core, summed over the samples covered
}

// label is the x axis label of a point: the whole seconds since the case
// started, at the start of the seconds it covers.
func (p chartPoint) label() int64 { return int64(p.at / time.Second) }

// downsample merges consecutive points of each segment so that at most
// limit points remain. Segments are the phases: merging across one would
// blend the last second of a phase with the first of the next into a value
// neither had. Counts add up, so a merged point's rate is the mean of its
// seconds; p99 takes the worst of the merged seconds, because percentiles
// cannot be averaged and hiding a spike would defeat the chart's purpose.
// CPU adds up too, and its mean is cpu / seconds: a sample is already a
// mean over its second.
func downsample(segs [][]chartPoint, limit int) []chartPoint {
	n := 0
	for _, seg := range segs {
		n += len(seg)
	}
	if n == 0 {
		return nil
	}
	if n <= limit || limit <= 0 {
		var out []chartPoint
		for _, seg := range segs {
			out = append(out, seg...)
		}
		return out
	}
	if len(segs) > limit {
		// More phases than points: only merging across them can fit.
		var all []chartPoint
		for _, seg := range segs {
			all = append(all, seg...)
		}
		segs = [][]chartPoint{all}
	}
	size := (n + limit - 1) / limit
	for chunks(segs, size) > limit {
		size++
	}
	out := make([]chartPoint, 0, limit)
	for _, seg := range segs {
		for i := 0; i < len(seg); i += size {
			out = append(out, merged(seg[i:min(i+size, len(seg))]))
		}
	}
	return out
}

// merged is one point standing for pts, labelled with the first one's time.
func merged(pts []chartPoint) chartPoint {
	p := chartPoint{at: pts[0].at}
	for _, q := range pts {
		p.succeeded += q.succeeded
		p.attempted += q.attempted
		p.seconds += q.seconds
		p.p99 = max(p.p99, q.p99)
		p.cpu += q.cpu
	}
	return p
}

// chunks counts the points downsample makes with chunks of size points.
func chunks(segs [][]chartPoint, size int) int {
	n := 0
	for _, seg := range segs {
		n += (len(seg) + size - 1) / size
	}
	return n
}

// caseTimeline lays the whole measured seconds of a case's phases on the
// case's own clock, one segment per phase. A point of the series covers
// [At, At+1) seconds after its phase started, but a phase may end
// mid-second (a request count reached, an abort, the deadline just before
// the tick): such a second holds a fraction of a second's requests and
// would plot as a drop that looks like an outage, so a point is kept only
// when its whole second lies within the phase's measured time.
//
// Phases follow one another, so a point starts at least a second after
// the previous one and the whole-second labels are unique and increasing.
func caseTimeline(c *results.CaseRun) [][]chartPoint {
	var origin time.Time
	for _, p := range c.Phases {
		if len(p.Series) > 0 && !p.Start.IsZero() && (origin.IsZero() || p.Start.Before(origin)) {
			origin = p.Start
		}
	}
	var segs [][]chartPoint
	var next time.Duration // where a phase without a start time goes: after the previous one
	for _, p := range c.Phases {
		offset := next
		if !p.Start.IsZero() && !origin.IsZero() {
			offset = p.Start.Sub(origin)
		}
		next = offset + p.Elapsed.Truncate(time.Second) + time.Second
		// Each trial ends in a partial second of its own: its whole
		// seconds are a segment, so no trial's tail plots as an outage.
		for _, run := range wholeSeconds(p) {
			var seg []chartPoint
			for _, s := range run {
				seg = append(seg, chartPoint{
					at:        offset + time.Duration(s.At)*time.Second,
					succeeded: s.Completed - s.Errors, // throughput counts successes only
					attempted: s.Completed,
					seconds:   1,
					p99:       s.P99,
				})
			}
			if len(seg) > 0 {
				segs = append(segs, seg)
			}
		}
	}
	return segs
}

// caseUsageTimeline is the server's CPU samples during the case on the
// case's clock, samples that start in the same whole second merged so
// that labels stay unique.
func caseUsageTimeline(c *results.CaseRun) [][]chartPoint {
	u := c.Server
	if !serverSampled(u) || len(u.Series) == 0 {
		return nil
	}
	origin := u.Series[0].At
	for _, p := range c.Phases {
		if !p.Start.IsZero() {
			origin = p.Start
			break
		}
	}
	var seg []chartPoint
	for i, s := range u.Series {
		if s.First {
			continue // it starts the first interval: no CPU figure
		}
		// A sample is the CPU since the previous one: place it at the start
		// of its interval, as a request point is placed at its second's start.
		step := time.Second
		if i > 0 {
			step = s.At.Sub(u.Series[i-1].At)
		} else if len(u.Series) > 1 {
			step = u.Series[1].At.Sub(s.At)
		}
		at := s.At.Add(-step).Sub(origin)
		if at < -step/2 {
			continue // mostly before the case's measurement
		}
		at = max(at, 0)
		pt := chartPoint{at: at, seconds: 1, cpu: s.CPU}
		if n := len(seg); n > 0 && seg[n-1].label() == pt.label() {
			seg[n-1] = merged([]chartPoint{seg[n-1], pt})
			continue
		}
		seg = append(seg, pt)
	}
	if len(seg) == 0 {
		return nil
	}
	return [][]chartPoint{seg}
}

// caseChart is what one case contributes to the scenario's charts.
type caseChart struct {
	c        *results.CaseRun
	requests []chartPoint // downsampled whole seconds
	cpu      []chartPoint
}

func (cc caseChart) rps() []float64 {
	out := make([]float64, len(cc.requests))
	for i, p := range cc.requests {
		out[i] = perSecond(float64(p.succeeded), p.seconds)
	}
	return out
}

// p99 keeps only the points with a success: a second in which nothing
// succeeded has no latency, and plotting 0 would read as fast.
func (cc caseChart) p99() ([]chartPoint, []float64) {
	var pts []chartPoint
	var vals []float64
	for _, p := range cc.requests {
		if p.succeeded > 0 {
			pts = append(pts, p)
			vals = append(vals, ms(p.p99))
		}
	}
	return pts, vals
}

func (cc caseChart) cpuMeans() []float64 {
	out := make([]float64, len(cc.cpu))
	for i, p := range cc.cpu {
		out[i] = perSecond(p.cpu, p.seconds)
	}
	return out
}

func perSecond(v float64, seconds int64) float64 {
	if seconds <= 0 {
		return 0
	}
	return v / float64(seconds)
}

// failedShare is the share of the charted requests that failed, in percent.
func (cc caseChart) failedShare() float64 {
	var ok, all int64
	for _, p := range cc.requests {
		ok += p.succeeded
		all += p.attempted
	}
	if all == 0 {
		return 0
	}
	return float64(all-ok) / float64(all) * 100
}

// mdCharts draws, per case, succeeded requests per second and p99 over
// the seconds since the case's measurement started, and the server's CPU
// when it was monitored. One chart per case and figure, the case in the
// title: xychart-beta has no legend, so several lines in one chart could
// only be told apart by colour, and cases run one after the other, so
// joining them on one line reads as one run with jumps. The charts of a
// scenario share their y range, so that cases compare at a glance and a
// dead target is a line along the bottom, not a rescaled wiggle.
func mdCharts(b *bytes.Buffer, sr *results.ScenarioRun) {
	var charts []caseChart
	for _, c := range sr.Cases {
		cc := caseChart{c: c,
			requests: downsample(caseTimeline(c), maxChartPoints),
			cpu:      downsample(caseUsageTimeline(c), maxChartPoints)}
		if len(cc.requests) > 0 || len(cc.cpu) > 0 {
			charts = append(charts, cc)
		}
	}
	if len(charts) == 0 {
		return
	}
	b.WriteString("#### Over time\n\n")
	b.WriteString("Per case, seconds since its measurement started. Whole seconds only: a phase's last, partial second is left out. " +
		"Throughput counts succeeded requests. The charts of one scenario share their y scale.\n\n")
	if len(charts) > maxChartedCases {
		fmt.Fprintf(b, "> Charts of the first %d of %d cases, to keep the summary short; every case's series is in results.json.\n\n",
			maxChartedCases, len(charts))
		charts = charts[:maxChartedCases]
	}
	var rpsTop, p99Top, cpuTop float64
	for _, cc := range charts {
		_, p99 := cc.p99()
		rpsTop, p99Top, cpuTop = max(rpsTop, slices.Max(append(cc.rps(), 0))),
			max(p99Top, slices.Max(append(p99, 0))), max(cpuTop, slices.Max(append(cc.cpuMeans(), 0)))
	}
	for _, cc := range charts {
		mdCaseCharts(b, cc, niceCeil(rpsTop), niceCeil(p99Top), niceCeil(cpuTop))
	}
}

// mdCaseCharts writes one case's charts with the scenario's y ranges.
func mdCaseCharts(b *bytes.Buffer, cc caseChart, rpsTop, p99Top, cpuTop float64) {
	name := mermaidText(cc.c.ID)
	if len(cc.requests) > 0 {
		title := name + ": succeeded requests/s"
		if f := cc.failedShare(); f > 0 {
			title += fmt.Sprintf(" (%s%% failed)", strconv.FormatFloat(f, 'f', 1, 64))
		}
		mdChart(b, title, cc.requests, "requests/s", rpsTop, cc.rps(), 1)
		if pts, vals := cc.p99(); len(pts) > 0 {
			mdChart(b, name+": p99 latency", pts, "p99 (ms)", p99Top, vals, 2)
		} else {
			fmt.Fprintf(b, "_%s: no request succeeded, so there is no latency to plot._\n\n", mdCode(cc.c.ID))
		}
	}
	if len(cc.cpu) > 0 {
		mdChart(b, name+": server CPU", cc.cpu, "CPU (% of one core)", cpuTop, cc.cpuMeans(), 1)
	}
}

// mdChart writes one xychart-beta line chart over whole seconds since the
// case started, its y axis from 0 to top.
func mdChart(b *bytes.Buffer, title string, pts []chartPoint, unit string, top float64, values []float64, prec int) {
	labels := make([]string, len(pts))
	vals := make([]string, len(values))
	for i, p := range pts {
		labels[i] = strconv.Quote(strconv.FormatInt(p.label(), 10))
		vals[i] = strconv.FormatFloat(values[i], 'f', prec, 64)
	}
	axis, secs := "seconds since the case started", int64(1)
	for _, p := range pts {
		secs = max(secs, p.seconds)
	}
	if secs > 1 {
		axis += fmt.Sprintf(" (%d s a point)", secs)
	}
	fmt.Fprintf(b, "```mermaid\n%s\nxychart-beta\n    title \"%s\"\n    x-axis \"%s\" [%s]\n    y-axis \"%s\" 0 --> %s\n    line [%s]\n```\n\n",
		chartInit, title, axis, strings.Join(labels, ", "), unit, strconv.FormatFloat(top, 'f', -1, 64), strings.Join(vals, ", "))
}

// chartInit makes the charts low, so that a case's charts fit on a screen,
// and their line a blue that shows on light and dark backgrounds alike:
// the default palette's first colour is a pale lilac barely visible on
// white. An init directive, unlike front matter, is understood by every
// Mermaid release GitHub has used.
const chartInit = `%%{init: {"xyChart": {"width": 700, "height": 280}, "themeVariables": {"xyChart": {"plotColorPalette": "#2f81f7"}}}}%%`

// niceCeil rounds v up to a round multiple of a power of ten, so that a
// shared y axis ends on a round figure; 1 when v is 0 (an all-zero chart
// still needs a range).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if c := m * p; c >= v*(1-1e-9) {
			// 1.2 × 100 is 120.00000000000001 in binary: keep the figure
			// that is written.
			c, _ = strconv.ParseFloat(strconv.FormatFloat(c, 'g', 4, 64), 64)
			return c
		}
	}
	return 10 * p
}
