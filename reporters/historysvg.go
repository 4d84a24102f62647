package reporters

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strings"

	"github.com/loadgate/loadgate/history"
)

// The history chart is drawn like the report's charts (htmlsvg.go): SVG
// written on the server, y from 0, the line of values marked by shape as
// well as colour. On top of the values each segment is a level line with
// a band of one standard deviation, and each change point a vertical
// marker whose label says worse or better in words, so that the chart
// reads without its colours.

// historyMaxXTicks bounds the commit labels under a chart: seven short
// shas fill the plot's width.
const historyMaxXTicks = 7

// historyChart draws the values of a's series over its runs, oldest
// first, with its segments and change points; link gives a commit's page
// or "".
func historyChart(a *history.Analysis, link func(sha string) string) template.HTML {
	s := a.Series
	if len(s.Points) == 0 {
		return template.HTML(`<p class="nodata">` + esc(seriesTitle(s)) + `: no runs to draw.</p>`)
	}
	sc := historyScale(a)
	base := svgChart{
		Title: seriesTitle(s), XLabel: "runs, oldest first (commit)", YLabel: s.Key.Metric,
		XTicks: historyXTicks(s), YFmt: s.Info.Format,
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart history" viewBox="0 0 %s %s" role="img" aria-label="%s">`, f1(svgW), f1(svgH), esc(base.Title))
	fmt.Fprintf(&b, `<title>%s</title>`, esc(base.Title))
	fmt.Fprintf(&b, `<text class="ttl" x="%s" y="16">%s</text>`, f1(svgLeft), esc(base.Title))
	base.axes(&b, sc)
	for i, seg := range a.Segments {
		drawSegment(&b, sc, s, i, seg)
	}
	line := svgSeries{Name: s.Key.Metric, Dots: len(s.Points) <= svgMaxMarkers}
	for i, p := range s.Points {
		line.Points = append(line.Points, svgPoint{X: float64(i), Y: p.Value})
	}
	drawSeries(&b, sc, 0, line, directLabels(sc, []svgSeries{line})[0])
	for i, ch := range a.Changes {
		drawChange(&b, sc, s, i, ch, link)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// historyScale fits the values and the segments' bands, x in run order.
func historyScale(a *history.Analysis) svgScale {
	top := 0.0
	for _, p := range a.Series.Points {
		if !math.IsNaN(p.Value) && !math.IsInf(p.Value, 0) {
			top = math.Max(top, p.Value)
		}
	}
	for _, seg := range a.Segments {
		top = math.Max(top, seg.Level*(1+seg.Spread))
	}
	return svgScale{x0: 0, x1: float64(len(a.Series.Points) - 1), y1: niceAxis(top)}
}

// historyXTicks labels every step-th run with its short commit, and the
// newest run in place of the last of them, so that labels never touch.
func historyXTicks(s *history.Series) []svgTick {
	n := len(s.Points)
	step := max(1, (n-1+historyMaxXTicks-2)/(historyMaxXTicks-1))
	var at []int
	for i := 0; i < n; i += step {
		at = append(at, i)
	}
	if last := at[len(at)-1]; last != n-1 {
		if len(at) > 1 && n-1-last < step {
			at = at[:len(at)-1]
		}
		at = append(at, n-1)
	}
	ticks := make([]svgTick, len(at))
	for i, j := range at {
		ticks[i] = svgTick{At: float64(j), Label: history.ShortCommit(s.Points[j].Run.Commit)}
	}
	return ticks
}

// segmentSpan is the horizontal extent of a segment: half a run beyond
// its first and last, within the plot; the whole plot for a series of
// one run.
func segmentSpan(sc svgScale, seg history.Segment) (x0, x1 float64) {
	if sc.x1 == sc.x0 {
		return svgLeft, svgLeft + svgPlotW
	}
	clamp := func(x float64) float64 { return math.Max(svgLeft, math.Min(svgLeft+svgPlotW, x)) }
	return clamp(sc.px(float64(seg.Start) - 0.5)), clamp(sc.px(float64(seg.End-1) + 0.5))
}

func drawSegment(b *strings.Builder, sc svgScale, s *history.Series, i int, seg history.Segment) {
	x0, x1 := segmentSpan(sc, seg)
	hi, lo := sc.py(seg.Level*(1+seg.Spread)), sc.py(math.Max(0, seg.Level*(1-seg.Spread)))
	y := sc.py(seg.Level)
	fmt.Fprintf(b, `<g class="seg"><title>%s</title><rect class="band" x="%s" y="%s" width="%s" height="%s"/><path class="lvl" d="M%s %sH%s"/></g>`,
		esc(fmt.Sprintf("segment %d: %s, spread %s, %s", i+1, s.Info.Format(seg.Level), spreadText(seg.Spread), plural(seg.Runs(), "run"))),
		f1(x0), f1(hi), f1(x1-x0), f1(lo-hi), f1(x0), f1(y), f1(x1))
}

// drawChange marks a change point between its good and first changed
// runs, labelled with its magnitude and direction, and links the label
// to the first changed commit where there is a page for it. Every other
// label sits lower, so that the labels of close change points stay apart.
func drawChange(b *strings.Builder, sc svgScale, s *history.Series, i int, ch history.Change, link func(string) string) {
	x, y := sc.px(float64(ch.Index)-0.5), svgTop-3
	if i%2 == 1 {
		y = svgTop + 11
	}
	cls := direction(ch)
	label := magnitudeText(ch.Magnitude) + " " + cls
	tip := fmt.Sprintf("%s → %s, p = %s, %s", s.Info.Format(ch.Before), s.Info.Format(ch.After), pValueText(ch.PValue), changeSpan(ch, nil))
	fmt.Fprintf(b, `<g class="cp %s"><title>%s</title><path d="M%s %sV%s"/>`, cls, esc(tip), f1(x), f1(svgTop), f1(svgTop+svgPlotH))
	text := fmt.Sprintf(`<text x="%s" y="%s" text-anchor="middle">%s</text>`, f1(x), f1(y), esc(label))
	if href := commitHref(link, ch.FirstChanged.Commit); href != "" {
		text = `<a href="` + esc(href) + `">` + text + `</a>`
	}
	b.WriteString(text + `</g>`)
}

// commitHref is the page of commit sha, or "" when there is none or it is
// not an http(s) address: a link in the page must not run anything.
func commitHref(link func(string) string, sha string) string {
	if link == nil || sha == "" {
		return ""
	}
	u, err := url.Parse(link(sha))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	return u.String()
}
