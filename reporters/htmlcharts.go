package reporters

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/loadgate/loadgate/results"
)

// maxHTMLPoints bounds a time-series chart: a long soak keeps the page
// small and each drawn point still covers whole seconds.
const maxHTMLPoints = 150

// caseSecond is one full second of a case on its own clock.
type caseSecond struct {
	at           float64 // seconds since the case's first measured phase began
	succeeded    float64
	errors       float64
	p50, p99     float64 // ms
	gapBefore    bool    // a new phase starts here: the line breaks
	p50ok, p99ok bool
}

// caseSeconds lays the case's measured phases on one clock. The last
// second of a phase, and of each of its trials, is usually partial and
// would plot as a drop that looks like an outage, so only whole seconds
// are kept; the line breaks between phases and between trials.
func caseSeconds(c *results.CaseRun) []caseSecond {
	if len(c.Phases) == 0 {
		return nil
	}
	origin := c.Phases[0].Start
	var out []caseSecond
	for _, p := range c.Phases {
		off := p.Start.Sub(origin).Seconds()
		for _, run := range wholeSeconds(p) {
			for i, s := range run {
				out = append(out, caseSecond{
					at: off + float64(s.At), succeeded: float64(s.Completed - s.Errors), errors: float64(s.Errors),
					p50: ms(s.P50), p99: ms(s.P99), p50ok: s.P50 > 0, p99ok: s.P99 > 0,
					gapBefore: i == 0 && len(out) > 0,
				})
			}
		}
	}
	return downsampleSeconds(out, maxHTMLPoints)
}

// wholeSeconds are the whole seconds of phase p, one run of them per
// trial. The series of a phase with trials is its trials' series one
// after the other, each ending in its own partial second; a trial's
// seconds are those whose requests add up to the trial's. When they do
// not add up (a document written otherwise), the phase is taken as one
// run, as a phase without trials is.
func wholeSeconds(p *results.PhaseResult) [][]results.Second {
	// whole keeps the seconds that began at least a second before
	// elapsed ran out, counted from the second at from.
	whole := func(series []results.Second, from int, elapsed time.Duration) []results.Second {
		var out []results.Second
		for _, s := range series {
			if s.At-from < int(elapsed/time.Second) {
				out = append(out, s)
			}
		}
		return out
	}
	if len(p.Trials) < 2 {
		return [][]results.Second{whole(p.Series, 0, p.Elapsed)}
	}
	var runs [][]results.Second
	rest := p.Series
	for _, t := range p.Trials {
		n, sum := 0, int64(0)
		for n < len(rest) && sum < t.Requests {
			sum += rest[n].Completed
			n++
		}
		if sum != t.Requests {
			return [][]results.Second{whole(p.Series, 0, p.Elapsed)}
		}
		if n > 0 {
			runs = append(runs, whole(rest[:n], rest[0].At, t.Elapsed))
		}
		rest = rest[n:]
	}
	return runs
}

// downsampleSeconds merges runs of consecutive seconds (never across a
// phase boundary): counts average to a per-second rate, p99 keeps the
// worst second since a percentile cannot be averaged and a hidden spike
// would defeat the chart; p50 becomes the mean of the merged seconds'
// medians, close to the true median for a steady phase.
func downsampleSeconds(in []caseSecond, limit int) []caseSecond {
	if len(in) <= limit {
		return in
	}
	k := (len(in) + limit - 1) / limit
	var out []caseSecond
	for i := 0; i < len(in); {
		cur := in[i]
		n := 1
		for j := i + 1; j < len(in) && n < k && !in[j].gapBefore; j++ {
			s := in[j]
			cur.succeeded += s.succeeded
			cur.errors += s.errors
			cur.p50 += s.p50
			cur.p99 = math.Max(cur.p99, s.p99)
			cur.p50ok, cur.p99ok = cur.p50ok || s.p50ok, cur.p99ok || s.p99ok
			n++
		}
		cur.succeeded /= float64(n)
		cur.errors /= float64(n)
		cur.p50 /= float64(n)
		out = append(out, cur)
		i += n
	}
	return out
}

func seriesOf(secs []caseSecond, y func(caseSecond) (float64, bool)) []svgPoint {
	pts := make([]svgPoint, 0, len(secs)+4)
	for _, s := range secs {
		if s.gapBefore {
			pts = append(pts, svgPoint{X: s.at, Y: math.NaN()})
		}
		v, ok := y(s)
		if !ok {
			v = math.NaN()
		}
		pts = append(pts, svgPoint{X: s.at, Y: v})
	}
	return pts
}

func msAxis(v float64) string { return axisNum(v) + " ms" }

// throughputChart draws succeeded and failed requests per second.
func throughputChart(c *results.CaseRun, secs []caseSecond) svgChart {
	ch := svgChart{
		Title: c.ID + ": throughput (succeeded/s) and errors/s", XLabel: "elapsed (s)", YLabel: "requests/s",
		Series: []svgSeries{{Name: "succeeded/s", Points: seriesOf(secs, func(s caseSecond) (float64, bool) { return s.succeeded, true })}},
	}
	if c.Stats.Failed > 0 {
		ch.Series = append(ch.Series, svgSeries{Name: "errors/s", Points: seriesOf(secs, func(s caseSecond) (float64, bool) { return s.errors, true })})
	}
	return ch
}

// latencyOverTimeChart draws p50 and p99 per second; seconds without a
// success have no latency and leave a gap rather than a zero.
func latencyOverTimeChart(c *results.CaseRun, secs []caseSecond) svgChart {
	return svgChart{
		Title: c.ID + ": latency over time (succeeded requests)", XLabel: "elapsed (s)", YLabel: "latency", YFmt: msAxis,
		Series: []svgSeries{
			{Name: "p50", Points: seriesOf(secs, func(s caseSecond) (float64, bool) { return s.p50, s.p50ok })},
			{Name: "p99", Points: seriesOf(secs, func(s caseSecond) (float64, bool) { return s.p99, s.p99ok })},
		},
	}
}

// hdrNines are the percentiles labelled on an HDR plot's x axis, which
// is log10(1 / (1 − q)): each step right is one more nine.
var hdrNines = []string{"0", "90", "99", "99.9", "99.99", "99.999"}

// percentileChart is the HDR percentile plot of the case's merged
// histogram (succeeded requests), from 0 to 99.999 on a log axis, with
// the baseline's p50 and p99 as reference lines when there is one.
func percentileChart(c *results.CaseRun) svgChart {
	ch := svgChart{Title: c.ID + ": latency by percentile (HDR, log scale)", XLabel: "percentile", YLabel: "latency", YFmt: msAxis}
	for i, l := range hdrNines {
		ch.XTicks = append(ch.XTicks, svgTick{At: float64(i), Label: l})
	}
	if pts := percentilePoints(c); pts != nil {
		ch.Series = []svgSeries{{Name: "this run", Points: pts}}
	}
	if bl := c.Baseline; bl != nil && bl.P99 > 0 {
		ch.HRefs = append(ch.HRefs, svgRef{At: ms(bl.P99), Label: "baseline p99"})
	}
	return ch
}

// percentilePoints samples the case's merged histogram ten times per nine;
// nil when nothing succeeded.
func percentilePoints(c *results.CaseRun) []svgPoint {
	h := c.Stats.LatencyHist
	if h == nil || h.Count() == 0 {
		return nil
	}
	var pts []svgPoint
	const perNine = 10
	for i := 0; i <= 5*perNine; i++ {
		x := float64(i) / perNine
		q := 100 * (1 - math.Pow(10, -x))
		pts = append(pts, svgPoint{X: x, Y: ms(h.Quantile(q))})
	}
	return pts
}

// abPercentileChart overlays the percentile plots of an A/B pair: where
// the candidate's line runs above the reference's, it is slower there.
func abPercentileChart(cand, ref *results.CaseRun) svgChart {
	ch := percentileChart(cand)
	ch.Title = cand.ID + " vs " + ref.ID + ": latency by percentile (HDR, log scale)"
	ch.HRefs = nil
	ch.Series = nil
	for _, c := range []*results.CaseRun{ref, cand} {
		if pts := percentilePoints(c); pts != nil {
			ch.Series = append(ch.Series, svgSeries{Name: c.Target, Points: pts})
		}
	}
	return ch
}

// serverCharts draws the monitored server's CPU and RSS on the case's clock.
func serverCharts(c *results.CaseRun) []svgChart {
	u := c.Server
	if !serverSampled(u) || len(u.Series) == 0 || len(c.Phases) == 0 {
		return nil
	}
	origin := c.Phases[0].Start
	var cpu, rss []svgPoint
	for _, s := range u.Series {
		x := s.At.Sub(origin).Seconds()
		if !s.First { // the first sample starts the first interval: no CPU figure
			cpu = append(cpu, svgPoint{X: x, Y: s.CPU})
		}
		rss = append(rss, svgPoint{X: x, Y: float64(s.RSS) / (1 << 20)})
	}
	name := "server"
	if c.ServerName != "" {
		name = c.ServerName
	}
	return []svgChart{
		{Title: c.ID + ": server CPU (% of one core)", XLabel: "elapsed (s)", YLabel: "CPU %",
			Series: []svgSeries{{Name: name + " CPU", Points: cpu}}},
		{Title: c.ID + ": server memory (RSS, process tree)", XLabel: "elapsed (s)", YLabel: "MiB",
			Series: []svgSeries{{Name: name + " RSS", Points: rss}}},
	}
}

// kneeCharts draws each concurrency sweep's rps and p99 against the
// level, one series per sweep, the knee marked on its sweep. Levels are
// spaced evenly: sweeps are usually geometric (1, 10, 100).
func kneeCharts(sr *results.ScenarioRun, knees []knee) []svgChart {
	if len(knees) == 0 {
		return nil
	}
	var levels []float64
	for _, k := range knees {
		levels = append(levels, k.levels...)
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	pos := make(map[float64]float64, len(levels))
	var ticks []svgTick
	for i, l := range levels {
		pos[l] = float64(i)
		ticks = append(ticks, svgTick{At: float64(i), Label: strconv.FormatFloat(l, 'f', -1, 64)})
	}
	rps := svgChart{Title: sr.Name + ": throughput by " + kneeKey, XLabel: kneeKey, YLabel: "succeeded/s", XTicks: ticks}
	p99 := svgChart{Title: sr.Name + ": p99 by " + kneeKey, XLabel: kneeKey, YLabel: "p99", XTicks: ticks, YFmt: msAxis}
	for _, k := range knees {
		name := k.target
		if k.fixed != "" {
			name += " " + k.fixed
		}
		var rp, pp []svgPoint
		for i, l := range k.levels {
			st := k.cases[i].Stats
			rp = append(rp, svgPoint{X: pos[l], Y: st.RPS})
			lat := math.NaN()
			if st.Succeeded > 0 {
				lat = ms(st.Latency.P99)
			}
			pp = append(pp, svgPoint{X: pos[l], Y: lat})
		}
		rps.Series = append(rps.Series, svgSeries{Name: name, Points: rp, Dots: true})
		p99.Series = append(p99.Series, svgSeries{Name: name, Points: pp, Dots: true})
		if k.at != nil {
			if l, ok := matrixNumber(kneeLevel(k.at)); ok {
				rps.VRefs = append(rps.VRefs, svgRef{At: pos[l], Label: "knee " + k.target})
				p99.VRefs = append(p99.VRefs, svgRef{At: pos[l], Label: "knee " + k.target})
			}
		}
	}
	return []svgChart{rps, p99}
}

// searchChart draws a capacity search: each probe's p99 against its
// rate, probes that missed the SLO crossed out, and the SLO's p99 bound.
func searchChart(title string, probes []results.Probe, slo string) svgChart {
	ch := svgChart{Title: title + ": p99 by probe rate", XLabel: "probe rate (requests/s)", YLabel: "p99", YFmt: msAxis}
	sorted := slices.Clone(probes)
	slices.SortStableFunc(sorted, func(x, y results.Probe) int { return cmp.Compare(x.Rate, y.Rate) })
	var pts []svgPoint
	for _, p := range sorted {
		pts = append(pts, svgPoint{X: p.Rate, Y: ms(p.P99)})
		if !p.Passed {
			label := "missed SLO"
			if p.Saturated {
				label = "generator saturated"
			}
			ch.Marks = append(ch.Marks, svgRef2{X: p.Rate, Y: ms(p.P99), Label: label})
		}
	}
	ch.Series = []svgSeries{{Name: "probes", Points: pts, Dots: true}}
	if bound, ok := sloLine(slo); ok {
		ch.HRefs = []svgRef{{At: bound, Label: "SLO p99"}}
	}
	return ch
}
