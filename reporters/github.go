package reporters

import (
	"fmt"
	"io"
	"strings"

	"github.com/loadgate/loadgate/results"
)

// GitHub Actions workflow commands (SPEC §5): every failing, warning or
// inconclusive threshold becomes an annotation on its line of the scenario
// file, inconclusive ones as warnings with the judgement's reason. An
// interrupted run is an error annotation of its own, and so is a run an
// abort: true rule stopped, on that rule's line.

// GitHubGroup opens a collapsible section of the Actions log titled title;
// the returned func closes it.
func GitHubGroup(w io.Writer, title string) (end func()) {
	fmt.Fprintf(w, "::group::%s\n", escapeData(title))
	return func() { fmt.Fprintln(w, "::endgroup::") }
}

// WriteAnnotations prints one workflow command per failing, warning or
// inconclusive verdict of run, and one for a baseline from a different
// environment, an interrupted run, a merge lacking a segment's load or
// with segments out of step, or an aborted scenario. path maps a
// scenario file to the path GitHub resolves against the repository (nil:
// as given).
func WriteAnnotations(w io.Writer, run *results.Run, path func(string) string) {
	if path == nil {
		path = func(file string) string { return file }
	}
	if run.Interrupted {
		// Verdicts of a partial run may all pass; the annotation must not
		// let the run read as green.
		fmt.Fprintf(w, "::error title=%s::%s\n", escapeProperty("loadgate: interrupted"),
			escapeData("the run was interrupted (SIGINT/SIGTERM): partial results, not judged"))
	}
	if why := run.InvalidReason(); why != "" {
		// Its verdicts are not judged; the annotation says why, so the
		// run never reads as green.
		fmt.Fprintf(w, "::error title=%s::%s\n", escapeProperty("loadgate: invalid — not judged"), escapeData(why))
	}
	if mi := run.Merged; len(mi.Partial()) > 0 {
		// A merge lacking a segment's load: not judged, or judged on
		// what arrived, and never green without saying so.
		level, title, why := "error", "loadgate: partial — not judged", mi.PartialText()+"; thresholds not judged"
		if mi.AllowPartial {
			level, title, why = "warning", "loadgate: partial, judged on what arrived (--allow-partial)", mi.PartialText()
		}
		fmt.Fprintf(w, "::%s title=%s::%s\n", level, escapeProperty(title), escapeData(why))
	}
	if t := run.Merged.SkewText(); t != "" {
		fmt.Fprintf(w, "::warning title=%s::%s\n", escapeProperty("loadgate: segments out of step"), escapeData(t))
	}
	if bi := run.Baseline; bi != nil && !bi.FingerprintMatch {
		level := "warning"
		if bi.StrictEnv {
			level = "error"
		}
		fmt.Fprintf(w, "::%s title=%s::%s\n", level, escapeProperty("loadgate: baseline from a different environment"),
			escapeData(bi.File+": "+strings.Join(bi.Differences, "; ")))
	}
	for _, sr := range run.Scenarios {
		annotateAborted(w, sr, path)
		for _, v := range sr.AllVerdicts() {
			level := ""
			switch {
			case v.Fails():
				level = "error"
			case v.Status == results.StatusFail || v.Status == results.StatusError,
				v.Status == results.StatusInconclusive, v.Status == results.StatusIncomparable:
				level = "warning"
			default:
				continue
			}
			msg := fmt.Sprintf("[%s] %s", v.Case, v.Rule)
			if v.Status == results.StatusInconclusive || v.Status == results.StatusIncomparable {
				msg = fmt.Sprintf("[%s] %s is %s", v.Case, v.Rule, v.Status)
			}
			if v.Actual != "" {
				msg += ": " + v.Actual
			}
			if v.Reason != "" {
				msg += " (" + v.Reason + ")"
			}
			fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level,
				escapeProperty(path(v.Pos.File)), v.Pos.Line, v.Pos.Col,
				escapeProperty(sr.Name+": "+v.Name), escapeData(msg))
		}
		if sr.Error != "" {
			fmt.Fprintf(w, "::error file=%s,title=%s::%s\n", escapeProperty(path(sr.File)),
				escapeProperty(sr.Name), escapeData(sr.Error))
		}
	}
}

// WriteErrorAnnotation prints one error workflow command for a problem in
// file at line and col (1-based), each left out when unknown ("" or 0),
// titled title.
func WriteErrorAnnotation(w io.Writer, file string, line, col int, title, msg string) {
	var props []string
	if file != "" {
		props = append(props, "file="+escapeProperty(file))
		if line > 0 {
			props = append(props, fmt.Sprintf("line=%d", line))
			if col > 0 {
				props = append(props, fmt.Sprintf("col=%d", col))
			}
		}
	}
	props = append(props, "title="+escapeProperty(title))
	fmt.Fprintf(w, "::error %s::%s\n", strings.Join(props, ","), escapeData(msg))
}

// annotateAborted points at the rule that stopped the scenario's load, so
// the pull request shows where and why the run stopped even when the
// verdicts over what was measured pass.
func annotateAborted(w io.Writer, sr *results.ScenarioRun, path func(string) string) {
	a := sr.Aborted
	if a == nil {
		return
	}
	loc := "file=" + escapeProperty(path(sr.File))
	for _, v := range sr.AllVerdicts() {
		if abortVerdict(a, v) && v.Pos.Line > 0 {
			loc = fmt.Sprintf("file=%s,line=%d,col=%d", escapeProperty(path(v.Pos.File)), v.Pos.Line, v.Pos.Col)
			break
		}
	}
	msg := "the load was stopped " + AbortReason(a)
	fmt.Fprintf(w, "::error %s,title=%s::%s\n", loc, escapeProperty("loadgate: aborted — "+sr.Name+": "+a.Name), escapeData(msg))
}

// Workflow command escaping, as the Actions runner decodes it, after the
// console's: the log is a terminal too, and an ESC in a rule or a server's
// message must not recolour or hide lines of it.
func escapeData(s string) string {
	return ConsoleText(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

func escapeProperty(s string) string {
	return ConsoleText(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}
