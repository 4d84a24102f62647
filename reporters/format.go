package reporters

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// ms converts to fractional milliseconds, the unit of ab's tables.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// plainNum renders a number the way ab's report does: no separators, no
// trailing zeros.
func plainNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// groupedNum renders a number with thousands separators, for tables whose
// other counts have them.
func groupedNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return units.FormatCount(int64(f))
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// rateText renders a requested arrival rate: "2000/s", or "100→5000/s"
// for a ramp across the phase.
func rateText(r scenarios.Rate, num func(float64) string) string {
	if r.From == r.To {
		return num(r.To) + "/s"
	}
	return num(r.From) + "→" + num(r.To) + "/s"
}

// openModel reports whether any of phases ran in the open model. Such a
// case has a requested rate and dropped arrivals to report, even when no
// arrival was dropped: a zero there is a finding, not an absence.
func openModel(phases []*results.PhaseResult) bool {
	for _, p := range phases {
		if p.Rate != nil {
			return true
		}
	}
	return false
}

// requestedRates lists the distinct requested rates of the open-model
// phases, in run order; nil when every phase ran in the closed model.
func requestedRates(phases []*results.PhaseResult, num func(float64) string) []string {
	var out []string
	for _, p := range phases {
		if p.Rate == nil {
			continue
		}
		if r := rateText(*p.Rate, num); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// fmtSpread renders the spread of trials the way benchstat users read it:
// the median that rules see, then how far the trials were apart.
func fmtSpread(s *results.Spread) string {
	return fmt.Sprintf("rps median %.1f (min %.1f, max %.1f, CV %.1f%%)", s.RPSMedian, s.RPSMin, s.RPSMax, s.RPSCV*100)
}

// fmtPct renders a ratio (0..1) as a percentage.
func fmtPct(ratio float64) string {
	return fmt.Sprintf("%.2f%%", ratio*100)
}

// fmtSeconds renders a decimal number of seconds, as JUnit wants it.
func fmtSeconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.3f", d.Seconds())
}

// errorKinds renders the non-zero error counts as "connect 3, reset 1",
// gRPC statuses by code: "grpc 12 (UNAVAILABLE 10, INTERNAL 2)".
func errorKinds(c results.ErrorCounts) string {
	var parts []string
	c.Each(func(kind string, n int64) {
		if n > 0 {
			part := kind + " " + units.FormatCount(n)
			if kind == "grpc" {
				part += " (" + grpcCodes(c) + ")"
			}
			parts = append(parts, part)
		}
	})
	return strings.Join(parts, ", ")
}

// grpcCodes renders the gRPC statuses counted as "INTERNAL 2, UNAVAILABLE 10".
func grpcCodes(c results.ErrorCounts) string {
	var parts []string
	c.EachGRPC(func(code string, n int64) { parts = append(parts, code+" "+units.FormatCount(n)) })
	return strings.Join(parts, ", ")
}

// matrixLabel renders a case's matrix combination as "k=v k=v".
func matrixLabel(m []results.MatrixEntry) string {
	parts := make([]string, len(m))
	for i, e := range m {
		parts[i] = e.Key + "=" + matrixText(e.Value)
	}
	return strings.Join(parts, " ")
}

// matrixText renders a matrix value the way it would be written in YAML.
func matrixText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// matrixNumber returns v as a number when it is one.
func matrixNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}

// verdictClass is how a verdict counts in reports: a warn-level failure is
// visible but never fails the run, so it needs its own class.
type verdictClass int

const (
	classPass verdictClass = iota
	classFail
	classWarn
	classSkip
	// classInconclusive keeps its own class even under
	// --fail-on-inconclusive: the report says the trials could not tell,
	// and the headline says the run failed.
	classInconclusive
	// classIncomparable: the comparison was of another load (the
	// baseline's, or the reference target's, was shaped differently), so
	// the rule was not judged; like inconclusive, it fails the run only
	// under --fail-on-inconclusive.
	classIncomparable
	// classNotJudged: the case was invalid (its figures describe the
	// generator), so the rule was neither passed nor failed.
	classNotJudged
	numClasses
)

func classify(v results.Verdict) verdictClass {
	switch {
	case v.Status == results.StatusSkip:
		return classSkip
	case v.Status == results.StatusNotJudged:
		return classNotJudged
	case v.Status == results.StatusInconclusive:
		return classInconclusive
	case v.Status == results.StatusIncomparable:
		return classIncomparable
	case v.Fails():
		return classFail
	case v.Status == results.StatusFail || v.Status == results.StatusError:
		return classWarn
	default:
		return classPass
	}
}

// verdictActual is what a report shows as the measured side of a verdict:
// the values the rule read and, for a comparison with the baseline, the
// judgement that decided it.
func verdictActual(v results.Verdict) string {
	switch {
	case v.Status == results.StatusNotJudged:
		// Why the run is invalid is said once, in its banner.
		return "not judged: the run is invalid"
	case v.Status == results.StatusError && v.Reason != "":
		return "error: " + v.Reason
	case v.Status == results.StatusSkip && v.Reason != "":
		if v.Actual != "" {
			return v.Actual + " (" + v.Reason + ")"
		}
		return v.Reason
	case v.Reason != "" && v.Actual != "":
		return v.Actual + " — " + v.Reason
	case v.Reason != "":
		return v.Reason
	default:
		return v.Actual
	}
}

// fmtDelta renders the relative change from base to cur, e.g. "+2.1%" or
// "−3.4%" (a true minus sign, which lines up with the plus); "—" when
// there is no base to compare with.
func fmtDelta(base, cur float64) string {
	switch {
	case base == 0 && cur == 0:
		return "0.0%"
	case base == 0 || math.IsNaN(base) || math.IsNaN(cur):
		return "—"
	}
	d := (cur - base) / math.Abs(base) * 100
	switch {
	case math.Abs(d) < 0.05:
		return "0.0%"
	case d > 0:
		return fmt.Sprintf("+%.1f%%", d)
	default:
		return fmt.Sprintf("−%.1f%%", -d)
	}
}

// where renders a verdict's position as file:line, which is what editors
// and GitHub annotations jump to; the column adds nothing for a reader.
func where(p scenarios.Pos) string {
	p.Col = 0
	return p.String()
}

// oneLine folds whitespace so free text fits a table cell or an attribute.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// envSummary renders the differences for one line of a report.
func envSummary(diffs []string) string {
	return strings.Join(diffs, "; ")
}
