package reporters

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// A capacity search (SPEC §14) is reported as its probes, the bracket it
// ended with and the capacity it found. A search the generator stopped
// gives only a lower bound, never a made-up number, and makes the run
// invalid like any saturated generator.

// specFor finds the spec of phase name; the zero spec when unknown.
func specFor(specs []results.SearchSpec, name string) results.SearchSpec {
	for _, s := range specs {
		if s.Phase == name {
			return s
		}
	}
	return results.SearchSpec{Phase: name}
}

// caseCapacity is the case's capacity as rules see it (the median trial's
// with trials), and whether it is a number at all: a search limited by
// the generator found only a lower bound.
func caseCapacity(c *results.CaseRun) (capacity float64, ok bool) {
	s := results.CaseSearch(c)
	if s == nil || s.NoCapacity() {
		return 0, false
	}
	if c.Stats.Search != nil {
		return c.Stats.Capacity, true
	}
	return s.Capacity, true
}

// fmtRateInt renders a rate in whole requests per second with separators:
// the probes' rates are a search's steps, not measurements.
func fmtRateInt(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return units.FormatCount(int64(math.Round(f)))
}

// fmtPrecision renders a fraction as a short percentage: 0.05 → "5%".
func fmtPrecision(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%"
}

// capacityCell is the case's capacity for a table cell: the figure rules
// see (the median trial's, with trials).
func capacityCell(c *results.CaseRun) string {
	s := results.CaseSearch(c)
	if cp, ok := caseCapacity(c); ok && s.Fail > 0 && cp > 0 {
		return fmtRateInt(cp)
	}
	return capacityShort(s)
}

// capacityShort is what one search found, for a table cell.
func capacityShort(s *results.SearchResult) string {
	switch {
	case s == nil:
		return "—"
	case s.LimitedByGenerator && s.Pass == 0:
		return "not a number (generator-limited, invalid)"
	case s.LimitedByGenerator:
		return "≥ " + fmtRateInt(s.Pass) + " (generator-limited, invalid)"
	case s.NoCapacity():
		return "not a number"
	case s.Capacity == 0 && s.Pass == 0:
		return "none"
	case s.Fail == 0:
		return "≥ " + fmtRateInt(s.Capacity)
	}
	return fmtRateInt(s.Capacity)
}

// capacityLine says what a search found, in one line: the capacity with
// its bracket and precision, a lower bound when the search met its max or
// was stopped by the generator, or that no rate met the SLO. precision is
// the scenario's; 0 when unknown, the bracket's own width is shown then.
func capacityLine(s *results.SearchResult, precision float64) string {
	first := 0.0
	if len(s.Probes) > 0 {
		first = s.Probes[0].Rate
	}
	switch {
	case s.LimitedByGenerator && s.Pass == 0:
		return "capacity: not a number (limited by the generator) — INVALID"
	case s.LimitedByGenerator:
		return "capacity ≥ " + fmtRateInt(s.Pass) + " rps (limited by the generator) — INVALID"
	case s.NoCapacity():
		return "capacity: not a number"
	case s.Capacity == 0 && s.Pass == 0:
		return "capacity: none — the first rate (" + fmtRateInt(first) + " rps) already failed the SLO"
	case s.Fail == 0:
		return "capacity ≥ " + fmtRateInt(s.Capacity) + " rps (the search's max met the SLO)"
	}
	p := "precision " + fmtPrecision(precision)
	if precision <= 0 && s.Pass > 0 {
		p = "within " + fmtPrecision((s.Fail-s.Pass)/s.Pass)
	}
	return fmt.Sprintf("capacity: %s rps (bracket %s–%s, %s)", fmtRateInt(s.Capacity), fmtRateInt(s.Pass), fmtRateInt(s.Fail), p)
}

// probeVerdict is the SLO column of a probe: ✓, or ✗ with the reason.
func probeVerdict(p results.Probe) string {
	switch {
	case p.Saturated:
		return "— generator saturated" + strings.Replace(reasonSuffix(p.Reason), " ", ": ", 1)
	case p.Passed:
		return "✓"
	}
	return "✗" + reasonSuffix(p.Reason)
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return " " + oneLine(r)
}

// sloLine reads the latency line a chart can draw from an SLO: the bound
// of a top-level `p99 < X` (or <=) conjunct. ok is false for anything
// else (a disjunction, a negation, another metric), since a line read
// from a rule that does not say it would be invented.
func sloLine(slo string) (msBound float64, ok bool) {
	if strings.ContainsAny(slo, "|!()") {
		return 0, false
	}
	for _, part := range strings.Split(slo, "&&") {
		f := strings.Fields(part)
		if len(f) != 3 || (f[0] != "p99" && f[0] != "latency.p99") || (f[1] != "<" && f[1] != "<=") {
			continue
		}
		d, err := time.ParseDuration(f[2])
		if err != nil || d <= 0 {
			return 0, false
		}
		return ms(d), true
	}
	return 0, false
}

// consoleSearch prints the probes of every search phase of a case, then
// what each search found.
func consoleSearch(b *bytes.Buffer, specs []results.SearchSpec, phases []*results.PhaseResult) {
	for _, p := range results.SearchedPhases(phases) {
		spec := specFor(specs, p.Name)
		title := "Capacity search (phase " + p.Name
		if spec.SLO != "" {
			title += "; SLO: " + spec.SLO
		}
		b.WriteString(oneLine(title) + ")\n")
		if len(p.Search.Probes) > 0 {
			consoleProbes(b, p.Search.Probes)
		}
		b.WriteString(capacityLine(p.Search, spec.Precision) + "\n")
		if r := p.Search.Reason; r != "" {
			b.WriteString("search ended: " + oneLine(r) + "\n")
		}
		b.WriteString("\n")
	}
}

// consoleProbes prints one row per probe.
func consoleProbes(b *bytes.Buffer, probes []results.Probe) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  #\tkind\trate/s\tachieved/s\tp50\tp99\terrors\tSLO\n")
	for i, pr := range probes {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, oneLine(pr.Kind), fmtRateInt(pr.Rate),
			units.FormatNumber(pr.Achieved, units.Figure), units.FormatDuration(pr.P50, units.Figure), units.FormatDuration(pr.P99, units.Figure), fmtPct(pr.ErrorRate), probeVerdict(pr))
	}
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
}

// quietCapacity is the capacity for the quiet summary's one line.
func quietCapacity(phases []*results.PhaseResult) string {
	ps := results.SearchedPhases(phases)
	if len(ps) == 0 {
		return ""
	}
	s := ps[len(ps)-1].Search
	if s.NoCapacity() {
		return ", " + strings.Replace(capacityLine(s, 0), "capacity: ", "capacity ", 1)
	}
	return ", capacity " + capacityShort(s) + " rps"
}

// mdSearches writes, per case and search phase, the probes as a table,
// a chart of p99 by probe rate with the SLO's latency bound when the SLO
// states one plainly, and what the search found.
func mdSearches(b *bytes.Buffer, sr *results.ScenarioRun) {
	for _, c := range sr.Cases {
		for _, p := range results.SearchedPhases(c.Phases) {
			spec := specFor(c.SearchSpecs, p.Name)
			fmt.Fprintf(b, "#### Capacity search: %s (phase %s)\n\n", mdCode(c.ID), mdCode(p.Name))
			if spec.SLO != "" {
				fmt.Fprintf(b, "SLO: %s\n\n", mdCode(spec.SLO))
			}
			if len(p.Search.Probes) > 0 {
				b.WriteString("| # | kind | rate (rps) | achieved (rps) | p50 | p99 | errors | SLO |\n|--:|:--|--:|--:|--:|--:|--:|:--|\n")
			}
			for i, pr := range p.Search.Probes {
				fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", i+1, mdText(pr.Kind), fmtRateInt(pr.Rate),
					units.FormatNumber(pr.Achieved, units.Figure), units.FormatDuration(pr.P50, units.Figure), units.FormatDuration(pr.P99, units.Figure), fmtPct(pr.ErrorRate), mdProbeVerdict(pr))
			}
			line := capacityLine(p.Search, spec.Precision)
			icon := "🎯"
			if p.Search.LimitedByGenerator {
				icon = "⛔"
			}
			fmt.Fprintf(b, "\n%s **%s**", icon, mdText(line))
			if r := p.Search.Reason; r != "" {
				b.WriteString(" · search ended: " + mdText(r))
			}
			b.WriteString("\n\n")
			mdSearchChart(b, sr.Name+" / "+c.ID, p.Search.Probes, spec.SLO)
		}
	}
}

// mdProbeVerdict is a probe's SLO cell.
func mdProbeVerdict(p results.Probe) string {
	switch {
	case p.Saturated:
		return "⚠️ generator saturated" + strings.Replace(mdReason(p.Reason), " ", ": ", 1)
	case p.Passed:
		return "✅"
	}
	return "❌" + mdReason(p.Reason)
}

func mdReason(r string) string {
	if r == "" {
		return ""
	}
	return " " + mdText(r)
}

// mdSearchChart draws each probe's p99 against its rate, probes in rate
// order, with the SLO's latency bound as a line when it can be read.
func mdSearchChart(b *bytes.Buffer, title string, probes []results.Probe, slo string) {
	if len(probes) == 0 {
		return
	}
	sorted := slices.Clone(probes)
	slices.SortStableFunc(sorted, func(x, y results.Probe) int { return cmp.Compare(x.Rate, y.Rate) })
	labels := make([]string, len(sorted))
	p99 := make([]string, len(sorted))
	for i, p := range sorted {
		labels[i] = strconv.Quote(strconv.FormatFloat(math.Round(p.Rate), 'f', 0, 64))
		p99[i] = strconv.FormatFloat(ms(p.P99), 'f', 2, 64)
	}
	fmt.Fprintf(b, "```mermaid\nxychart-beta\n    title \"%s\"\n    x-axis \"probe rate (requests/s)\" [%s]\n    y-axis \"p99 (ms)\"\n    bar [%s]\n",
		mermaidText(title+": p99 by probe rate"), strings.Join(labels, ", "), strings.Join(p99, ", "))
	if bound, ok := sloLine(slo); ok {
		line := make([]string, len(sorted))
		for i := range line {
			line[i] = strconv.FormatFloat(bound, 'f', 2, 64)
		}
		fmt.Fprintf(b, "    line [%s]\n", strings.Join(line, ", "))
	}
	b.WriteString("```\n\n")
	if _, ok := sloLine(slo); ok {
		b.WriteString("Bars: each probe's p99; line: the SLO's p99 bound.\n\n")
	} else {
		b.WriteString("Bars: each probe's p99.\n\n")
	}
}
