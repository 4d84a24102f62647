package reporters

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
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
	fixed  string     // the other matrix keys, "" when concurrency is the only one
	at     *CaseRun   // the knee's case; nil when there is none
	next   *CaseRun   // the level after the knee
	levels []float64  // the swept levels, ascending
	cases  []*CaseRun // in the order of levels
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
		who, kneeKey, mdText(matrixText(kneeLevel(k.at))), fmtRate(a), fmtRate(n), growth,
		fmtDur(k.at.Stats.Latency.P99), fmtDur(k.next.Stats.Latency.P99))
}

func kneeLevel(c *CaseRun) any {
	for _, m := range c.Matrix {
		if m.Key == kneeKey {
			return m.Value
		}
	}
	return nil
}

// findKnees finds every concurrency sweep of at least three numeric levels
// in the scenario and locates its knee.
func findKnees(sr *ScenarioRun) []knee {
	type sweep struct {
		target, fixed string
		byLevel       map[float64]*CaseRun
	}
	var order []string
	sweeps := make(map[string]*sweep)
	for _, c := range sr.Cases {
		level, ok := 0.0, false
		var others []MatrixEntry
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
			s = &sweep{target: c.Target, fixed: fixed, byLevel: make(map[float64]*CaseRun)}
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

// chartPoint is one point of a scenario's timeline.
type chartPoint struct {
	at        time.Duration // since the scenario started
	succeeded int64         // requests that succeeded in the covered seconds
	seconds   int64         // seconds (or server usage samples) covered
	p99       time.Duration
	cpu       float64 // server CPU, percent of one core, summed over the samples covered
}

// downsample merges consecutive points of each segment so that at most
// limit points remain. Segments are the phases: merging across one would
// blend the last second of a case with the first of the next into a value
// neither had. Counts add up; p99 takes the worst of the merged seconds,
// because percentiles cannot be averaged and hiding a spike would defeat
// the chart's purpose. CPU adds up too, and its mean is cpu / seconds: a
// sample is already a mean over its second.
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
			p := chartPoint{at: seg[i].at}
			for _, q := range seg[i:min(i+size, len(seg))] {
				p.succeeded += q.succeeded
				p.seconds += q.seconds
				p.p99 = max(p.p99, q.p99)
				p.cpu += q.cpu
			}
			out = append(out, p)
		}
	}
	return out
}

// chunks counts the points downsample makes with chunks of size points.
func chunks(segs [][]chartPoint, size int) int {
	n := 0
	for _, seg := range segs {
		n += (len(seg) + size - 1) / size
	}
	return n
}

// timeline lays the measured seconds of every phase on the scenario's own
// clock, one segment per phase in time order, so the chart shows the run as
// it happened, case after case.
func timeline(sr *ScenarioRun) [][]chartPoint {
	origin := sr.Start
	var segs [][]chartPoint
	for _, c := range sr.Cases {
		for _, p := range c.Phases {
			if len(p.Series) == 0 {
				continue
			}
			if origin.IsZero() {
				origin = p.Start
			}
			offset := p.Start.Sub(origin)
			seg := make([]chartPoint, 0, len(p.Series))
			for _, s := range p.Series {
				seg = append(seg, chartPoint{
					at:        offset + time.Duration(s.At)*time.Second,
					succeeded: s.Completed - s.Errors, // throughput counts successes only
					seconds:   1,
					p99:       s.P99,
				})
			}
			segs = append(segs, seg)
		}
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i][0].at < segs[j][0].at })
	return segs
}

// mdCharts draws throughput and p99 over time, and the server's CPU when it
// was monitored. They are separate charts because xychart-beta has a
// single y axis and the figures have different units.
func mdCharts(b *bytes.Buffer, sr *ScenarioRun) {
	pts := downsample(timeline(sr), maxChartPoints)
	cpu := downsample(usageTimeline(sr), maxChartPoints)
	if len(pts) == 0 && len(cpu) == 0 {
		return
	}
	title := mermaidText(sr.Name)
	b.WriteString("#### Over time\n\n")
	if len(pts) > 0 {
		rps := make([]string, len(pts))
		p99 := make([]string, len(pts))
		for i, p := range pts {
			r := 0.0
			if p.seconds > 0 {
				r = float64(p.succeeded) / float64(p.seconds)
			}
			rps[i] = strconv.FormatFloat(r, 'f', 1, 64)
			p99[i] = strconv.FormatFloat(ms(p.p99), 'f', 2, 64)
		}
		mdChart(b, title+": throughput", pts, "requests/s", rps)
		mdChart(b, title+": p99 latency", pts, "p99 (ms)", p99)
	}
	if len(cpu) > 0 {
		vals := make([]string, len(cpu))
		for i, p := range cpu {
			mean := 0.0
			if p.seconds > 0 {
				mean = p.cpu / float64(p.seconds)
			}
			vals[i] = strconv.FormatFloat(mean, 'f', 1, 64)
		}
		mdChart(b, title+": server CPU", cpu, "CPU (% of one core)", vals)
	}
}

// mdChart writes one xychart-beta line chart over seconds since the start.
func mdChart(b *bytes.Buffer, title string, pts []chartPoint, unit string, values []string) {
	labels := make([]string, len(pts))
	for i, p := range pts {
		labels[i] = strconv.Quote(strconv.FormatInt(int64(p.at/time.Second), 10))
	}
	fmt.Fprintf(b, "```mermaid\nxychart-beta\n    title \"%s\"\n    x-axis \"seconds since start\" [%s]\n    y-axis \"%s\"\n    line [%s]\n```\n\n",
		title, strings.Join(labels, ", "), unit, strings.Join(values, ", "))
}
