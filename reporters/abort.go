package reporters

import (
	"fmt"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
)

// A run stopped by an `abort: true` threshold (SPEC §4, §14) failed: every
// report names the rule, how far into its phase it failed, the window it
// judged and the values it saw, and none ever shows the run as passed.

// abortedRule names the rule that stopped the run: its name with the
// rule when the two differ.
func abortedRule(a *results.Aborted) string {
	switch {
	case a.Rule == "":
		return a.Name
	case a.Name == "" || a.Name == a.Rule:
		return a.Rule
	}
	return a.Name + ": " + a.Rule
}

// abortedWindow says what part of the phase the rule judged.
func abortedWindow(w time.Duration) string {
	if w <= 0 {
		return "over the phase so far"
	}
	return "over the last " + w.String()
}

// abortedAt renders the time into the phase to a tenth of a second, the
// resolution of a once-a-second check.
func abortedAt(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// AbortReason says where and why an abort: true rule stopped the load, in
// one line: "at 3.2s into phase measured of case api: p99 < 50ms failed
// over the last 10s: p99 = 812ms". Every report and the command line say
// it in these words, each with its own lead ("ABORTED", "the load was
// stopped") and in its own markup.
func AbortReason(a *results.Aborted) string {
	return oneLine(abortSentence(a, identity, identity))
}

func identity(s string) string { return s }

// abortSentence is AbortReason with the names in it (phase, case, rule)
// marked by name and the values the rule saw by text, for a report with
// markup of its own.
func abortSentence(a *results.Aborted, name, text func(string) string) string {
	s := "at " + abortedAt(a.At) + " into phase " + name(a.Phase)
	if a.Case != "" {
		s += " of case " + name(a.Case)
	}
	s += ": " + name(abortedRule(a)) + " failed " + abortedWindow(a.Window)
	if a.Actual != "" {
		s += ": " + text(a.Actual)
	}
	return s
}

// consoleAborted is the console's banner for an aborted scenario.
func consoleAborted(a *results.Aborted) string {
	return "⛔ ABORTED " + AbortReason(a) + ". The load was stopped there; the run fails.\n\n"
}

// mdAborted is the Markdown banner for an aborted scenario.
func mdAborted(a *results.Aborted) string {
	return "> ⛔ **Aborted** " + abortSentence(a, mdCode, mdText) + ". The load was stopped there; the run fails.\n\n"
}

// abortVerdict reports whether v judged the rule that aborted the run.
func abortVerdict(a *results.Aborted, v results.Verdict) bool {
	if a == nil || (a.Case != "" && v.Case != a.Case) {
		return false
	}
	return (a.Name != "" && v.Name == a.Name) || (a.Name == "" && v.Rule == a.Rule)
}

// junitAbortFailure is the failure of the aborting threshold's testcase.
func junitAbortFailure(a *results.Aborted, v *results.Verdict) *junitProblem {
	var b strings.Builder
	row := func(k, val string) {
		if val != "" {
			fmt.Fprintf(&b, "%-9s %s\n", k+":", val)
		}
	}
	row("aborted", "at "+abortedAt(a.At)+" into phase "+a.Phase)
	row("rule", a.Rule)
	row("window", strings.TrimPrefix(abortedWindow(a.Window), "over "))
	row("actual", a.Actual)
	row("case", a.Case)
	if v != nil {
		row("at", where(v.Pos))
	}
	return &junitProblem{
		Message: "aborted " + AbortReason(a),
		Type:    "abort",
		Body:    xmlSafe(b.String()),
	}
}
