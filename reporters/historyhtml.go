package reporters

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/loadgate/loadgate/history"
)

// historyCSS adds the history chart's layers to the report's style: the
// spread band and level line of a segment, and change points in the
// fail colour when worse, the pass colour when better (dashed when
// better, so that the two differ without colour too).
const historyCSS = `
svg .seg .band{fill:var(--mut);fill-opacity:.18}svg .seg .lvl{stroke:var(--fg);stroke-width:1.6;fill:none}
svg .cp path{stroke-width:1.6;fill:none}svg .cp text{font-weight:600}
svg .cp.worse path{stroke:var(--fail)}svg .cp.worse text{fill:var(--fail)}
svg .cp.better path{stroke:var(--pass);stroke-dasharray:5 3}svg .cp.better text{fill:var(--pass)}
svg a text{text-decoration:underline}
td.worse{color:var(--fail)}td.better{color:var(--pass)}
section.series{border-top:1px solid var(--line);margin-top:16px}
section.series figure{max-width:900px}
`

// The page is html/template, which escapes every name and commit and
// drops a link that is not a URL; the chart is SVG from historyChart,
// which escapes its own text and links only http(s) pages.
var historyPageTmpl = template.Must(template.New("history").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>loadgate history</title>
<style>{{.CSS}}</style>
</head>
<body>
<main>
<h1>loadgate history</h1>
<p class="meta">{{.Summary}}</p>
{{if not .Series}}<p>No series to show: the store holds no run that matches.</p>
{{end}}{{range .Series}}<section class="series">
<h2>{{.Title}}</h2>
{{range .About}}<p class="meta">{{.}}</p>
{{end}}<figure>{{.Chart}}</figure>
{{if .Changes}}<div class="scroll"><table class="changes">
<thead><tr><th>change</th><th>at run</th><th>magnitude</th><th>level</th><th>p-value</th><th>good</th><th>first changed</th><th>commits between</th></tr></thead>
<tbody>{{range .Changes}}<tr><th scope="row">{{.Segments}}</th><td>{{.Run}}</td><td class="{{.Class}}">{{.Magnitude}}</td><td>{{.Levels}}</td><td>{{.PValue}}</td><td>{{template "commit" .Good}}</td><td>{{template "commit" .First}}</td><td>{{.Commits}}</td></tr>
{{end}}</tbody></table></div>
{{end}}<p class="note">{{.Level}}</p>
</section>
{{end}}</main>
</body>
</html>
{{define "commit"}}{{if .URL}}<a href="{{.URL}}"><code>{{.Short}}</code></a>{{else}}<code>{{.Short}}</code>{{end}}{{if .Date}} · {{.Date}}{{end}}{{end}}`))

type historyPage struct {
	CSS     template.CSS
	Summary string
	Series  []historyHTMLSeries
}

type historyHTMLSeries struct {
	Title   string
	About   []string
	Chart   template.HTML
	Changes []historyHTMLChange
	Level   string // the newest segment, or the one level
}

type historyHTMLChange struct {
	Segments, Run, Class, Magnitude, Levels, PValue, Commits string
	Good, First                                              historyCommit
}

type historyCommit struct {
	Short, URL, Date string
}

// WriteHistoryHTML writes every analysed series on one self-contained
// page: each a chart of its values over its runs, with its segments'
// levels and spreads and its change points marked worse or better, and a
// table of the change points with links to their commits. No script, no
// external resource, like report.html.
func WriteHistoryHTML(w io.Writer, as []*history.Analysis, o HistoryOptions) error {
	page := historyPage{
		CSS:     template.CSS(htmlCSS + historyCSS),
		Summary: seriesCount(len(as)) + " · change points: " + detectionParams(o.Options),
	}
	for _, a := range as {
		page.Series = append(page.Series, historyHTMLSeriesOf(a, o))
	}
	var b bytes.Buffer
	if err := historyPageTmpl.Execute(&b, page); err != nil {
		return fmt.Errorf("render history HTML: %w", err)
	}
	// As in report.html: html/template lets control characters and bidi
	// overrides through, and only user text can hold them.
	if _, err := io.WriteString(w, ConsoleText(b.String())); err != nil {
		return fmt.Errorf("write history HTML: %w", err)
	}
	return nil
}

func historyHTMLSeriesOf(a *history.Analysis, o HistoryOptions) historyHTMLSeries {
	s := a.Series
	hs := historyHTMLSeries{Title: seriesTitle(s), About: seriesAbout(s), Chart: historyChart(a, o.CommitURL)}
	commit := func(e *history.Entry) historyCommit {
		return historyCommit{Short: history.ShortCommit(e.Commit), URL: commitHref(o.CommitURL, e.Commit), Date: runDate(e)}
	}
	for i, ch := range a.Changes {
		hc := historyHTMLChange{
			Segments: fmt.Sprintf("%d → %d", i+1, i+2), Run: fmt.Sprintf("%d of %d", ch.Index+1, len(s.Points)),
			Class: direction(ch), Magnitude: magnitudeText(ch.Magnitude) + " " + direction(ch),
			Levels: s.Info.Format(ch.Before) + " → " + s.Info.Format(ch.After), PValue: pValueText(ch.PValue),
			Good: commit(ch.Good), First: commit(ch.FirstChanged), Commits: "unknown",
		}
		if n, ok := commitsBetween(ch, o.Commits); ok {
			hc.Commits = fmt.Sprint(n)
		}
		hs.Changes = append(hs.Changes, hc)
	}
	switch {
	case len(a.Segments) == 0:
		hs.Level = "No runs."
	case len(a.Changes) == 0:
		last := a.Last()
		hs.Level = fmt.Sprintf("No change point: one level, %s over %s.", levelText(s, last), plural(last.Runs(), "run"))
	default:
		last := a.Last()
		hs.Level = fmt.Sprintf("Newest level: %s over %s since %s.", levelText(s, last), plural(last.Runs(), "run"), runDate(s.Points[last.Start].Run))
	}
	return hs
}
