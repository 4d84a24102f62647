package reporters

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
)

// HTMLFile is the name of the HTML report in the output directory.
const HTMLFile = "report.html"

//go:embed html.css
var htmlCSS string

//go:embed html.tmpl
var htmlTemplate string

// The page is html/template: every text that comes from a scenario, a
// server or a results file is escaped by it; the charts are SVG built by
// svgChart, which escapes its own text, and the marks by htmlMarks, which
// escapes the text around them.
var htmlPageTmpl = template.Must(template.New("page").Funcs(htmlFuncs()).Parse(htmlTemplate))

// NamedRun is a results document with the name a report gives it (its
// file), for pages that show several runs.
type NamedRun struct {
	Name string
	Run  *results.Run
}

// WriteHTML writes run as one self-contained HTML page: inline CSS, charts
// as inline SVG, no script and no external resource, so it opens offline
// and from a CI artifact.
func WriteHTML(w io.Writer, run *results.Run) error {
	return WriteHTMLRuns(w, []NamedRun{{Run: run}})
}

// WriteHTMLRuns writes several runs on one page, one section each in the
// order given (`loadgate report A.json B.json`).
func WriteHTMLRuns(w io.Writer, runs []NamedRun) error {
	page := htmlPage{CSS: template.CSS(htmlCSS)}
	for _, nr := range runs {
		page.Runs = append(page.Runs, htmlRunOf(nr))
	}
	page.Title = "loadgate report"
	if len(page.Runs) == 1 {
		page.Title = page.Runs[0].Headline
	}
	var b bytes.Buffer
	if err := htmlPageTmpl.Execute(&b, page); err != nil {
		return fmt.Errorf("render HTML: %w", err)
	}
	// html/template escapes markup but passes control characters, bidi
	// overrides and invalid UTF-8 through; neither the template nor the
	// CSS holds any, so whatever is there came from user text.
	if _, err := io.WriteString(w, ConsoleText(b.String())); err != nil {
		return fmt.Errorf("write HTML: %w", err)
	}
	return nil
}

type htmlPage struct {
	Title string
	CSS   template.CSS
	Runs  []htmlRun
}

type htmlRun struct {
	Name      string
	Class     string // pass, fail, warn: the headline's look
	Headline  string
	Banners   []htmlBanner
	Meta      string
	Summary   string
	Scenarios []htmlScenario
}

type htmlBanner struct {
	Class, Text string
	Items       []string
}

// Outcome is what a run's headline says, in the order the reports decide
// it: an interrupted, aborted or not-carried-out run is never "passed".
type outcome int

const (
	outcomePassed outcome = iota
	outcomeFailed
	outcomeInterrupted
	outcomeAborted
	outcomeNotCarriedOut
	outcomeInvalid
	outcomeNotJudged // a merge that lacks some segment's load
)

// runOutcome decides the headline the way the Markdown report does.
func runOutcome(run *results.Run) outcome {
	switch {
	case run.Interrupted:
		return outcomeInterrupted
	case run.Invalid():
		return outcomeInvalid
	case run.Merged.NotJudged():
		return outcomeNotJudged
	case run.Aborted() != nil:
		return outcomeAborted
	case run.NotCarriedOut():
		return outcomeNotCarriedOut
	case !run.Passed:
		return outcomeFailed
	}
	return outcomePassed
}

// htmlHeadline is the page's verdict line and its look.
func htmlHeadline(run *results.Run) (text, class string) {
	h := runHeadline(run)
	return h.String(), h.Class
}

func htmlRunOf(nr NamedRun) htmlRun {
	run := nr.Run
	hr := htmlRun{Name: nr.Name}
	hr.Headline, hr.Class = htmlHeadline(run)
	if cases := results.InvalidCases(run); len(cases) > 0 {
		b := htmlBanner{Class: "fail", Text: "⚠ Invalid — not judged. " + invalidAdvice}
		for _, c := range cases {
			b.Items = append(b.Items, c.Scenario+" / "+c.ID+": "+c.Reason)
		}
		hr.Banners = append(hr.Banners, b)
	}
	if run.Interrupted {
		hr.Banners = append(hr.Banners, htmlBanner{Class: "warn", Text: "⏹ Interrupted: the run was stopped early; figures are partial."})
	}
	if b, ok := htmlSegments(run); ok {
		hr.Banners = append(hr.Banners, b)
	}
	if bi := run.Baseline; bi != nil {
		switch {
		case bi.FingerprintMatch:
			hr.Banners = append(hr.Banners, htmlBanner{Class: "info", Text: "Baseline: " + bi.File + ", measured in the same environment."})
		case bi.StrictEnv:
			hr.Banners = append(hr.Banners, htmlBanner{Class: "fail", Text: "Baseline from a different environment (" + bi.File + "), which --strict-env makes a failure: " + envSummary(bi.Differences) + "."})
		default:
			hr.Banners = append(hr.Banners, htmlBanner{Class: "warn", Text: "Baseline from a different environment (" + bi.File + "): " + envSummary(bi.Differences) + ". A change against it may come from the machine rather than the code."})
		}
	}
	hr.Meta = htmlMeta(run)
	var all []results.Verdict
	cases := 0
	for _, sr := range run.Scenarios {
		all = append(all, sr.AllVerdicts()...)
		cases += len(sr.Cases)
		hr.Scenarios = append(hr.Scenarios, htmlScenarioOf(sr, run.Baseline != nil, run.Merged.NotJudged()))
	}
	hr.Summary = fmt.Sprintf("%s, %s · thresholds: %s", plural(len(run.Scenarios), "scenario"), plural(cases, "case"), tally(all))
	return hr
}

// htmlMeta names the run: version, commit, host, start and duration.
func htmlMeta(r *results.Run) string {
	var parts []string
	if r.LoadgateVersion != "" {
		parts = append(parts, "loadgate "+r.LoadgateVersion)
	}
	if r.Commit != "" {
		parts = append(parts, "commit "+r.Commit[:min(12, len(r.Commit))])
	}
	if h := r.Host; h.Hostname != "" || h.OS != "" {
		s := "host " + h.Hostname
		var d []string
		if h.OS != "" {
			d = append(d, h.OS+"/"+h.Arch)
		}
		if h.Cores > 0 {
			d = append(d, plural(h.Cores, "core"))
		}
		if h.CPUModel != "" {
			d = append(d, h.CPUModel)
		}
		if len(d) > 0 {
			s += " (" + strings.Join(d, ", ") + ")"
		}
		parts = append(parts, s)
	}
	if !r.Start.IsZero() {
		parts = append(parts, "started "+r.Start.UTC().Format("2006-01-02 15:04:05 UTC"))
		if r.End.After(r.Start) {
			parts = append(parts, "took "+r.End.Sub(r.Start).Round(time.Second).String())
		}
	}
	return strings.Join(parts, " · ")
}
