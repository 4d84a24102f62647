package reporters

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// WriteMarkdown writes run as GitHub-flavoured Markdown sized for a GitHub
// Actions step summary: a headline verdict, then per scenario a table of
// cases (with the server's CPU and memory and the host's load when they
// were sampled), the knee of a concurrency sweep, the threshold verdicts, a
// side-by-side table when several targets were compared, the A/B verdicts
// of targets judged against a baseline_target, and Mermaid charts of
// throughput, p99 and server CPU over time.
func WriteMarkdown(w io.Writer, run *results.Run) error {
	var b bytes.Buffer
	mdHeadline(&b, run)
	for _, sr := range run.Scenarios {
		mdScenario(&b, sr, run.Baseline != nil, run.Merged.NotJudged())
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write Markdown: %w", err)
	}
	return nil
}

// verdictTally counts verdicts by how they count for the run.
type verdictTally [numClasses]int

func tally(vs []results.Verdict) verdictTally {
	var t verdictTally
	for _, v := range vs {
		t[classify(v)]++
	}
	return t
}

func (t verdictTally) String() string {
	var parts []string
	for _, p := range []struct {
		n     int
		label string
	}{{t[classPass], "passed"}, {t[classFail], "failed"}, {t[classInconclusive], "inconclusive"}, {t[classIncomparable], "incomparable"},
		{t[classWarn], "warned"}, {t[classSkip], "skipped"}, {t[classNotJudged], "not judged"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.label))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " · ")
}

func mdHeadline(b *bytes.Buffer, run *results.Run) {
	h := runHeadline(run)
	verdict := h.Mark + " " + mdText(h.Text)
	fmt.Fprintf(b, "## %s\n\n", verdict)
	mdInvalid(b, run)
	mdNotes(b, run)
	if run.Interrupted {
		b.WriteString("> ⏹ **Interrupted:** the run was stopped early; figures are partial.\n\n")
	}
	mdBaseline(b, run.Baseline)
	mdSegments(b, run)

	meta := runMeta(run)
	if !run.Start.IsZero() && run.End.After(run.Start) {
		meta = append(meta, "took "+run.End.Sub(run.Start).Round(time.Second).String())
	}
	if len(meta) > 0 {
		b.WriteString(strings.Join(meta, " · ") + "\n\n")
	}

	var all []results.Verdict
	cases := 0
	for _, sr := range run.Scenarios {
		all = append(all, sr.AllVerdicts()...)
		cases += len(sr.Cases)
	}
	fmt.Fprintf(b, "%s, %s · thresholds: %s\n\n",
		plural(len(run.Scenarios), "scenario"), plural(cases, "case"), tally(all))
	switch u := undecidedOf(run); {
	case u.failing == 1:
		b.WriteString("> ❔ 1 undecided verdict fails the run: `--fail-on-inconclusive` counts a comparison the trials could not decide, or of another load, as a failure.\n\n")
	case u.failing > 1:
		fmt.Fprintf(b, "> ❔ %d undecided verdicts fail the run: `--fail-on-inconclusive` counts a comparison the trials could not decide, or of another load, as a failure.\n\n", u.failing)
	}
}

// mdBaseline names the baseline, with a banner when it was measured in a
// different environment: a change may then come from the machine, not
// from the code.
func mdBaseline(b *bytes.Buffer, bi *results.BaselineInfo) {
	if bi == nil {
		return
	}
	src := mdCode(bi.File)
	if len(bi.Files) > 1 {
		src += fmt.Sprintf(" (%d results files)", len(bi.Files))
	}
	if bi.History {
		src = "main's history in " + src + " (each case against main's latest stable level)"
	}
	switch {
	case bi.History && bi.FingerprintMatch:
		fmt.Fprintf(b, "Baseline: %s, runs of the same environment only.\n\n", src)
	case bi.FingerprintMatch:
		fmt.Fprintf(b, "Baseline: %s, measured in the same environment.\n\n", src)
	case bi.StrictEnv:
		fmt.Fprintf(b, "> ❌ **Baseline from a different environment** (%s), which `--strict-env` makes a failure: %s.\n\n",
			src, mdText(envSummary(bi.Differences)))
	default:
		fmt.Fprintf(b, "> ⚠️ **Baseline from a different environment** (%s): %s. A change against it may come from the machine rather than the code.\n\n",
			src, mdText(envSummary(bi.Differences)))
	}
}

func mdHost(h results.Host) string {
	if h.Hostname == "" && h.OS == "" {
		return ""
	}
	var parts []string
	if h.OS != "" {
		parts = append(parts, mdText(h.OS+"/"+h.Arch))
	}
	if h.Cores > 0 {
		parts = append(parts, plural(h.Cores, "core"))
	}
	if h.CPUModel != "" {
		parts = append(parts, mdText(h.CPUModel))
	}
	s := "host " + mdCode(h.Hostname)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// mdScenario writes one scenario; notJudged marks a merge lacking some
// segment's load, whose scenarios were not judged.
func mdScenario(b *bytes.Buffer, sr *results.ScenarioRun, withBaseline, notJudged bool) {
	icon := "✅"
	t := tally(sr.AllVerdicts())
	switch {
	case sr.Interrupted:
		icon = "⏹"
	case scenarioInvalid(sr):
		icon = "⚠"
	case sr.Aborted != nil:
		icon = "⛔"
	case !sr.Passed():
		icon = "❌"
	case notJudged:
		icon = "⚠"
	case t[classWarn] > 0:
		icon = "⚠️"
	case t[classInconclusive] > 0:
		icon = "❔"
	case t[classIncomparable] > 0:
		icon = "≠"
	}
	fmt.Fprintf(b, "### %s %s\n\n", icon, mdText(sr.Name))
	if sr.Description != "" {
		b.WriteString(mdText(sr.Description) + "\n\n")
	}
	var id []string
	if sr.File != "" {
		id = append(id, mdCode(sr.File))
	}
	if sr.Hash != "" {
		h := sr.Hash
		if len(h) > 12 {
			h = h[:12]
		}
		id = append(id, "sha256 "+mdCode(h))
	}
	if sr.Interrupted {
		id = append(id, "⏹ interrupted")
	}
	if len(id) > 0 {
		b.WriteString(strings.Join(id, " · ") + "\n\n")
	}
	if sr.Error != "" {
		fmt.Fprintf(b, "> ❌ **Could not run:** %s\n\n", mdText(sr.Error))
	}
	if sr.Aborted != nil {
		b.WriteString(mdAborted(sr.Aborted))
	}
	if len(sr.Cases) > 0 {
		knees := findKnees(sr)
		mdCaseTable(b, sr, knees, withBaseline)
		mdServersTable(b, sr)
		for _, k := range knees {
			b.WriteString(k.note() + "\n")
		}
		var failed []string
		for _, c := range sr.Cases {
			if c.Error != "" {
				failed = append(failed, fmt.Sprintf("- ❌ %s could not run: %s\n", mdCode(c.ID), mdText(c.Error)))
			}
		}
		if len(failed) > 0 {
			b.WriteString(strings.Join(failed, "") + "\n")
		}
		mdErrorSamples(b, sr)
		mdStatusCodes(b, sr)
		mdFlows(b, sr)
		mdSearches(b, sr)
	}
	mdHistory(b, sr)
	if vs := sr.AllVerdicts(); len(vs) > 0 {
		mdThresholds(b, vs)
	}
	if len(sr.Targets()) > 1 {
		mdSideBySide(b, sr)
	}
	mdABVerdicts(b, sr)
	mdCharts(b, sr)
}

// orDash fills an empty cell, which GitHub would render as a gap that
// reads like a missing value.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func mdThresholds(b *bytes.Buffer, vs []results.Verdict) {
	b.WriteString("#### Thresholds\n\n")
	b.WriteString("| | case | threshold | actual | where |\n|:-:|:--|:--|:--|:--|\n")
	for _, v := range vs {
		rule := mdCode(v.Rule)
		if v.Name != "" && v.Name != v.Rule {
			rule = mdText(v.Name) + ": " + rule
		}
		if v.Severity != "" && v.Severity != "fail" {
			rule += " (" + string(v.Severity) + ")"
		}
		pos := where(v.Pos)
		if pos != "" {
			pos = mdCode(pos)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n",
			verdictIcon(v), mdCode(v.Case), rule, mdText(verdictActual(v)), pos)
	}
	b.WriteString("\n")
}

func verdictIcon(v results.Verdict) string {
	switch classify(v) {
	case classInconclusive:
		return "❔"
	case classIncomparable:
		return "≠"
	case classFail:
		return "❌"
	case classWarn:
		return "⚠️"
	case classSkip:
		return "⏭"
	case classNotJudged:
		return "⚠"
	default:
		return "✅"
	}
}

// mdSideBySide puts targets next to each other: one row per matrix
// combination, rps and p99 per target, and the server's CPU and memory when
// a server was monitored, which is the comparison people run several
// targets for.
func mdSideBySide(b *bytes.Buffer, sr *results.ScenarioRun) {
	targets := sr.Targets()
	var rows []string
	cells := make(map[string]map[string]*results.CaseRun)
	for _, c := range sr.Cases {
		row := matrixLabel(c.Matrix)
		if cells[row] == nil {
			cells[row] = make(map[string]*results.CaseRun)
			rows = append(rows, row)
		}
		cells[row][c.Target] = c
	}
	server, _ := usageColumns(sr)
	b.WriteString("#### Side by side\n\n| matrix |")
	sep := "|:--|"
	for _, t := range targets {
		fmt.Fprintf(b, " %s rps | %s p99 |", mdText(t), mdText(t))
		sep += "--:|--:|"
		if server {
			fmt.Fprintf(b, " %s CPU | %s RSS max |", mdText(t), mdText(t))
			sep += "--:|--:|"
		}
	}
	b.WriteString("\n" + sep + "\n")
	for _, row := range rows {
		label := row
		if label == "" {
			label = "(all)"
		}
		fmt.Fprintf(b, "| %s |", mdText(label))
		for _, t := range targets {
			c := cells[row][t]
			if c == nil {
				b.WriteString(" — | — |")
				if server {
					b.WriteString(" — | — |")
				}
				continue
			}
			fmt.Fprintf(b, " %s | %s |", units.FormatNumber(c.Stats.RPS, units.Figure), units.FormatDuration(c.Stats.Latency.P99, units.Figure))
			if server {
				cpu, rss := "—", "—"
				if u := c.Server; serverSampled(u) {
					cpu, rss = fmtCPU(u.CPUMean), units.FormatMiB(u.RSSMax)+" MiB"
				}
				fmt.Fprintf(b, " %s | %s |", cpu, rss)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// mdErrorSamples lists the first message of each error kind per case, so
// that a reader learns what failed ("connection refused") from the summary
// alone.
func mdErrorSamples(b *bytes.Buffer, sr *results.ScenarioRun) {
	var lines []string
	for _, c := range sr.Cases {
		c.Stats.Errors.Each(func(kind string, n int64) {
			if msg := c.Stats.ErrorSamples[kind]; n > 0 && msg != "" {
				lines = append(lines, fmt.Sprintf("- %s %s × %s, first: %s\n", mdCode(c.ID), kind, units.FormatCount(n), mdText(msg)))
			}
		})
	}
	if len(lines) > 0 {
		b.WriteString("**Errors** (first message of each kind)\n\n" + strings.Join(lines, "") + "\n")
	}
}

// mdStatusCodes lists the HTTP responses of each case by status code, a
// row per code, as ab's "Non-2xx responses" and Artillery's http.codes.*
// do; nothing when no case counted any (gRPC, TCP, WebSocket).
func mdStatusCodes(b *bytes.Buffer, sr *results.ScenarioRun) {
	cases := statusCodeRows(sr)
	if len(cases) == 0 {
		return
	}
	b.WriteString("**Status codes** (HTTP responses by status, whether expect accepted them or not)\n\n")
	b.WriteString("| case | status | responses | of requests |\n|:--|--:|--:|--:|\n")
	for _, cs := range cases {
		for i, r := range cs.Rows {
			name := ""
			if i == 0 {
				name = mdCode(cs.Case)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", name, r.Code, r.Responses, r.Share)
		}
	}
	b.WriteString("\n")
}
