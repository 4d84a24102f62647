package reporters

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The HTML report draws its charts as SVG written here, on the server side:
// the page needs no script (it reads the same with JavaScript disabled and
// offline), the output is a pure function of the results (golden files stay
// stable), and a chart costs a few kilobytes. Every series differs by dash
// pattern and marker shape as well as colour and carries its name at its
// end, so the charts read in greyscale and for colour-blind readers.

// svgPoint is one point; a NaN Y breaks the line (a gap between phases).
type svgPoint struct{ X, Y float64 }

// svgSeries is one line of a chart.
type svgSeries struct {
	Name   string
	Points []svgPoint
	// Dots draws every point as a marker of its own: for few points
	// (matrix levels, probes), where each one is a measurement.
	Dots bool
}

// svgRef is a reference line: a horizontal SLO bound or a vertical knee.
type svgRef struct {
	At    float64
	Label string
}

// svgTick places a label on an axis.
type svgTick struct {
	At    float64
	Label string
}

// svgChart is everything a chart shows. Y always starts at 0: a rate or a
// latency drawn from a non-zero floor exaggerates every wiggle.
type svgChart struct {
	Title          string
	XLabel, YLabel string
	Series         []svgSeries
	// XTicks replaces the computed ticks of the x axis: categorical
	// matrix levels, percentile nines.
	XTicks []svgTick
	HRefs  []svgRef
	VRefs  []svgRef
	YFmt   func(float64) string // tick labels; plain numbers when nil
	// Marks are points drawn with a hollow marker and a label: the failed
	// probes of a capacity search, for instance.
	Marks []svgRef2
}

// svgRef2 is a labelled point.
type svgRef2 struct {
	X, Y  float64
	Label string
}

const (
	svgW, svgH                 = 640.0, 250.0
	svgLeft, svgRight          = 64.0, 120.0
	svgTop, svgBottom          = 28.0, 40.0
	svgMaxMarkers              = 12
	svgPlotW, svgPlotH float64 = svgW - svgLeft - svgRight, svgH - svgTop - svgBottom
)

// dashes and shapes tell series apart without colour.
var svgDashes = []string{"", "6 4", "2 3", "10 3 2 3", "1 6", "12 6"}

type svgScale struct{ x0, x1, y1 float64 }

func (s svgScale) px(x float64) float64 {
	if s.x1 == s.x0 {
		return svgLeft + svgPlotW/2
	}
	return svgLeft + (x-s.x0)/(s.x1-s.x0)*svgPlotW
}

func (s svgScale) py(y float64) float64 { return svgTop + svgPlotH - y/s.y1*svgPlotH }

// f1 writes a coordinate with one decimal: enough for a 640-unit box and
// half the bytes of full precision.
func f1(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

func esc(s string) string { return template.HTMLEscapeString(s) }

// Render draws the chart, or a sentence saying there is nothing to draw.
func (c svgChart) Render() template.HTML {
	sc, ok := c.scale()
	if !ok {
		return template.HTML(`<p class="nodata">` + esc(c.Title) + `: no data to draw.</p>`)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %s %s" role="img" aria-label="%s">`,
		f1(svgW), f1(svgH), esc(c.Title))
	fmt.Fprintf(&b, `<title>%s</title>`, esc(c.Title))
	fmt.Fprintf(&b, `<text class="ttl" x="%s" y="16">%s</text>`, f1(svgLeft), esc(c.Title))
	c.axes(&b, sc)
	for _, r := range c.HRefs {
		y := sc.py(r.At)
		fmt.Fprintf(&b, `<path class="ref" d="M%s %sH%s"/><text class="rl" x="%s" y="%s">%s</text>`,
			f1(svgLeft), f1(y), f1(svgLeft+svgPlotW), f1(svgLeft+svgPlotW+4), f1(y+4), esc(r.Label))
	}
	for _, r := range c.VRefs {
		x := sc.px(r.At)
		fmt.Fprintf(&b, `<path class="ref" d="M%s %sV%s"/><text class="rl" x="%s" y="%s" text-anchor="middle">%s</text>`,
			f1(x), f1(svgTop), f1(svgTop+svgPlotH), f1(x), f1(svgTop-3), esc(r.Label))
	}
	labelY := directLabels(sc, c.Series)
	for i, s := range c.Series {
		drawSeries(&b, sc, i, s, labelY[i])
	}
	for _, m := range c.Marks {
		x, y := sc.px(m.X), sc.py(math.Min(m.Y, sc.y1))
		fmt.Fprintf(&b, `<g class="mark"><circle cx="%s" cy="%s" r="5"/><path d="M%s %sl6 6m0 -6l-6 6"/><text x="%s" y="%s">%s</text></g>`,
			f1(x), f1(y), f1(x-3), f1(y-3), f1(x+7), f1(y-6), esc(m.Label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// scale finds the ranges to draw; ok is false when no point is finite.
func (c svgChart) scale() (svgScale, bool) {
	sc := svgScale{x0: math.Inf(1), x1: math.Inf(-1)}
	any := false
	see := func(x, y float64) {
		if math.IsNaN(y) || math.IsInf(y, 0) || math.IsNaN(x) {
			return
		}
		any = true
		sc.x0, sc.x1, sc.y1 = math.Min(sc.x0, x), math.Max(sc.x1, x), math.Max(sc.y1, y)
	}
	for _, s := range c.Series {
		for _, p := range s.Points {
			see(p.X, p.Y)
		}
	}
	if !any {
		return sc, false
	}
	for _, m := range c.Marks {
		see(m.X, m.Y)
	}
	for _, r := range c.HRefs {
		sc.y1 = math.Max(sc.y1, r.At*1.1)
	}
	for _, t := range c.XTicks {
		sc.x0, sc.x1 = math.Min(sc.x0, t.At), math.Max(sc.x1, t.At)
	}
	sc.y1 = niceAxis(sc.y1)
	return sc, true
}

// niceAxis rounds up to 1, 2, 2.5 or 5 times a power of ten: the coarse
// steps an SVG axis grid reads well in (Markdown charts use niceCeil).
func niceAxis(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func (c svgChart) axes(b *strings.Builder, sc svgScale) {
	yf := c.YFmt
	if yf == nil {
		yf = axisNum
	}
	fmt.Fprintf(b, `<g class="ax"><path d="M%s %sV%sH%s"/>`, f1(svgLeft), f1(svgTop), f1(svgTop+svgPlotH), f1(svgLeft+svgPlotW))
	n := yIntervals(sc.y1)
	for i := 0; i <= n; i++ {
		v := sc.y1 * float64(i) / float64(n)
		y := sc.py(v)
		fmt.Fprintf(b, `<path class="grid" d="M%s %sH%s"/><text x="%s" y="%s" text-anchor="end">%s</text>`,
			f1(svgLeft), f1(y), f1(svgLeft+svgPlotW), f1(svgLeft-5), f1(y+4), esc(yf(v)))
	}
	ticks := c.XTicks
	if ticks == nil {
		ticks = linearTicks(sc.x0, sc.x1)
	}
	for _, t := range ticks {
		x := sc.px(t.At)
		fmt.Fprintf(b, `<path d="M%s %sv4"/><text x="%s" y="%s" text-anchor="middle">%s</text>`,
			f1(x), f1(svgTop+svgPlotH), f1(x), f1(svgTop+svgPlotH+16), esc(t.Label))
	}
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, f1(svgLeft+svgPlotW/2), f1(svgH-4), esc(c.XLabel))
	fmt.Fprintf(b, `<text x="12" y="%s" text-anchor="middle" transform="rotate(-90 12 %s)">%s</text></g>`,
		f1(svgTop+svgPlotH/2), f1(svgTop+svgPlotH/2), esc(c.YLabel))
}

// yIntervals divides a niceCeil top into round steps: 25 in five steps
// of 5, 2 in four of 0.5, 10 in five of 2.
func yIntervals(top float64) int {
	m := top / math.Pow(10, math.Floor(math.Log10(top)))
	if math.Abs(m-2) < 1e-9 {
		return 4
	}
	return 5
}

// linearTicks puts about six round ticks on [x0, x1].
func linearTicks(x0, x1 float64) []svgTick {
	if x1 <= x0 {
		return []svgTick{{At: x0, Label: axisNum(x0)}}
	}
	step := niceAxis((x1 - x0) / 6)
	var out []svgTick
	for v := math.Ceil(x0/step) * step; v <= x1+step*1e-9; v += step {
		out = append(out, svgTick{At: v, Label: axisNum(v)})
	}
	return out
}

// axisNum renders a tick value compactly: 12k, 1.5M, 0.25.
func axisNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	default:
		return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
	}
}

// directLabels places each series' name beside its last point, pushed
// apart vertically so that lines ending close together keep readable
// names.
func directLabels(sc svgScale, series []svgSeries) []float64 {
	ys := make([]float64, len(series))
	order := make([]int, 0, len(series))
	for i, s := range series {
		ys[i] = math.NaN()
		for j := len(s.Points) - 1; j >= 0; j-- {
			if !math.IsNaN(s.Points[j].Y) {
				ys[i] = sc.py(s.Points[j].Y) + 4
				order = append(order, i)
				break
			}
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ys[a], ys[b]) })
	const gap = 12
	for k := 1; k < len(order); k++ {
		if prev := ys[order[k-1]]; ys[order[k]] < prev+gap {
			ys[order[k]] = prev + gap
		}
	}
	return ys
}

func drawSeries(b *strings.Builder, sc svgScale, i int, s svgSeries, labelY float64) {
	cls := "s" + strconv.Itoa(i%len(svgDashes))
	var d strings.Builder
	pen := false
	var last svgPoint
	var finite []svgPoint
	for _, p := range s.Points {
		if math.IsNaN(p.Y) {
			pen = false
			continue
		}
		op := "L"
		if !pen {
			op = "M"
		}
		d.WriteString(op + f1(sc.px(p.X)) + " " + f1(sc.py(p.Y)))
		pen, last = true, p
		finite = append(finite, p)
	}
	if len(finite) == 0 {
		return
	}
	fmt.Fprintf(b, `<g class="ser %s"><path class="ln" d="%s"`, cls, d.String())
	if dash := svgDashes[i%len(svgDashes)]; dash != "" {
		fmt.Fprintf(b, ` stroke-dasharray="%s"`, dash)
	}
	b.WriteString(`/>`)
	// Markers at intervals (every point for Dots) carry the series' shape.
	every := 1
	if !s.Dots && len(finite) > svgMaxMarkers {
		every = (len(finite) + svgMaxMarkers - 1) / svgMaxMarkers
	}
	for j := 0; j < len(finite); j += every {
		marker(b, i, sc.px(finite[j].X), sc.py(finite[j].Y))
	}
	fmt.Fprintf(b, `<text class="dl" x="%s" y="%s">%s</text></g>`, f1(sc.px(last.X)+6), f1(labelY), esc(s.Name))
}

// marker draws shape i (circle, square, triangle, diamond, plus, cross).
func marker(b *strings.Builder, i int, x, y float64) {
	switch i % len(svgDashes) {
	case 0:
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3"/>`, f1(x), f1(y))
	case 1:
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="6" height="6"/>`, f1(x-3), f1(y-3))
	case 2:
		fmt.Fprintf(b, `<path d="M%s %sl4 7h-8z"/>`, f1(x), f1(y-4))
	case 3:
		fmt.Fprintf(b, `<path d="M%s %sl4 4l-4 4l-4 -4z"/>`, f1(x), f1(y-4))
	case 4:
		fmt.Fprintf(b, `<path class="open" d="M%s %sh8m-4 -4v8"/>`, f1(x-4), f1(y))
	default:
		fmt.Fprintf(b, `<path class="open" d="M%s %sl6 6m0 -6l-6 6"/>`, f1(x-3), f1(y-3))
	}
}
