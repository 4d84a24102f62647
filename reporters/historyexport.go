package reporters

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/history"
)

// historyExportFormats are the formats WriteHistoryExport writes.
var historyExportFormats = []string{"csv", "otava", "bencher"}

// historyUnits says in which units the exports write each metric: the
// store's own, never a display unit.
const historyUnits = "requests per second for rps and capacity; nanoseconds for p50, p90 and p99; " +
	"a fraction 0-1 for error_rate; percent of one core for server.cpu; counts for dropped and requests"

// WriteHistoryExport writes series for another tool, in base units (see
// historyUnits):
//   - "csv": one row per run and series, with the run's trials;
//   - "otava": one row per run and one column per series, for Apache
//     Otava's CSV import;
//   - "bencher": the newest run of each series in Bencher Metric Format.
func WriteHistoryExport(w io.Writer, series []*history.Series, format string) error {
	var b bytes.Buffer
	switch format {
	case "csv":
		writeHistoryCSV(&b, series)
	case "otava":
		writeHistoryOtava(&b, series)
	case "bencher":
		if err := writeHistoryBencher(&b, series); err != nil {
			return err
		}
	default:
		return fmt.Errorf("history export: unknown format %q (want %s)", format, strings.Join(historyExportFormats, ", "))
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write history export: %w", err)
	}
	return nil
}

// writeHistoryCSV writes the long table: one row per run and series.
func writeHistoryCSV(b *bytes.Buffer, series []*history.Series) {
	b.WriteString("# loadgate history: one row per run and series; value is the run's median, trials its trials; units: " + historyUnits + "\n")
	csvRow(b, "scenario", "case", "metric", "environment", "load", "time", "commit", "branch", "value", "trials")
	for _, s := range series {
		for _, p := range s.Points {
			trials := make([]string, len(p.Trials))
			for i, t := range p.Trials {
				trials[i] = baseNumber(t)
			}
			csvRow(b, s.Key.Scenario, s.Key.Case, s.Key.Metric, s.Key.Env, s.Key.Load,
				p.Run.Time.UTC().Format(time.RFC3339), p.Run.Commit, p.Run.Branch, baseNumber(p.Value), strings.Join(trials, ";"))
		}
	}
}

// otavaRun is a row of the Otava table: the entries of one results file
// (one per scenario) share its end time and commit.
type otavaRun struct {
	time   time.Time
	commit string
}

// writeHistoryOtava writes the wide table Otava's CSV import reads: a
// time and a commit column, then one column per series. Otava's config
// names the metric columns it analyses, and it cannot read an empty cell,
// so a run without a series' metric leaves that cell empty and the docs
// say to list only the columns every run has.
func writeHistoryOtava(b *bytes.Buffer, series []*history.Series) {
	names := seriesNames(series)
	header := []string{"time", "commit"}
	cells := map[otavaRun][]string{}
	for i, s := range series {
		header = append(header, names[i].column)
		for _, p := range s.Points {
			k := otavaRun{p.Run.Time.UTC(), p.Run.Commit}
			row := cells[k]
			if row == nil {
				row = make([]string, len(series))
				cells[k] = row
			}
			row[i] = baseNumber(p.Value)
		}
	}
	runs := make([]otavaRun, 0, len(cells))
	for k := range cells {
		runs = append(runs, k)
	}
	slices.SortFunc(runs, func(a, b otavaRun) int { return cmp.Or(a.time.Compare(b.time), cmp.Compare(a.commit, b.commit)) })
	csvRow(b, header...)
	for _, k := range runs {
		csvRow(b, append([]string{k.time.Format(time.RFC3339), k.commit}, cells[k]...)...)
	}
}

// bmfMetric is one measure of a benchmark in Bencher Metric Format.
type bmfMetric struct {
	Value float64  `json:"value"`
	Lower *float64 `json:"lower_value,omitempty"`
	Upper *float64 `json:"upper_value,omitempty"`
}

// writeHistoryBencher writes the newest run of each series as Bencher
// Metric Format: a benchmark per case, a measure per metric, with the
// lowest and highest trial as its bounds where the metric has trials.
func writeHistoryBencher(b *bytes.Buffer, series []*history.Series) error {
	names := seriesNames(series)
	out := map[string]map[string]bmfMetric{}
	for i, s := range series {
		if len(s.Points) == 0 {
			continue
		}
		p := s.Points[len(s.Points)-1]
		m := bmfMetric{Value: p.Value}
		if len(p.Trials) > 0 {
			lo, hi := slices.Min(p.Trials), slices.Max(p.Trials)
			m.Lower, m.Upper = &lo, &hi
		}
		bench := names[i].benchmark
		if out[bench] == nil {
			out[bench] = map[string]bmfMetric{}
		}
		out[bench][s.Key.Metric] = m
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("history export: bencher: %w", err)
	}
	return nil
}

// seriesName is what a series is called in an export.
type seriesName struct {
	column    string // Otava: [<scenario>.]<case>[ qualifiers].<metric>
	benchmark string // Bencher: <scenario>/<case>[ qualifiers]
}

// seriesNames names each series by its case and metric. The scenario
// prefixes an Otava column only when the export holds several. A case
// measured in several environments, or with several loads, is several
// series: their names add " [env ID]", " [load DIGEST]" for what differs,
// so that no two series share a name.
func seriesNames(series []*history.Series) []seriesName {
	type sc struct{ scenario, caseID string }
	envs, loads := map[sc]map[string]bool{}, map[sc]map[string]bool{}
	scenarios := map[string]bool{}
	for _, s := range series {
		k := sc{s.Key.Scenario, s.Key.Case}
		if envs[k] == nil {
			envs[k], loads[k] = map[string]bool{}, map[string]bool{}
		}
		envs[k][s.Key.Env], loads[k][s.Key.Load] = true, true
		scenarios[s.Key.Scenario] = true
	}
	out := make([]seriesName, len(series))
	for i, s := range series {
		k := sc{s.Key.Scenario, s.Key.Case}
		c := s.Key.Case
		if len(envs[k]) > 1 {
			c += " [env " + s.Key.Env + "]"
		}
		if len(loads[k]) > 1 {
			c += " [load " + s.Key.Load + "]"
		}
		col := c + "." + s.Key.Metric
		if len(scenarios) > 1 {
			col = s.Key.Scenario + "." + col
		}
		out[i] = seriesName{column: col, benchmark: s.Key.Scenario + "/" + c}
	}
	return out
}

// baseNumber writes a value in full, without an exponent: 1250000,
// 0.0125. A value that is not a number, which the store never holds, is
// left empty.
func baseNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// csvRow writes one CSV record. A field is quoted when it holds a comma,
// a quote or a line break, when it starts or ends with a space, and when
// it starts with '#', which a reader skipping comment lines would skip.
func csvRow(b *bytes.Buffer, fields ...string) {
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\r\n") || strings.HasPrefix(f, "#") || strings.TrimSpace(f) != f {
			b.WriteString(`"` + strings.ReplaceAll(f, `"`, `""`) + `"`)
		} else {
			b.WriteString(f)
		}
	}
	b.WriteString("\n")
}
