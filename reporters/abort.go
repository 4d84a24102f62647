package reporters

import (
	"fmt"
	"strings"
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/runner"
)

// A run stopped by an `abort: true` threshold (SPEC §4, §14) failed: every
// report names the rule, how far into its phase it failed, the window it
// judged and the values it saw, and none ever shows the run as passed.

// abortedRule names the rule that stopped the run: its name with the
// rule when the two differ.
func abortedRule(a *runner.Aborted) string {
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

// abortedText is the plain sentence every report builds on:
// "at 3.2s into phase measured of case api: p99 < 50ms failed over the
// last 10s: p99 = 812ms".
func abortedText(a *runner.Aborted) string {
	s := fmt.Sprintf("at %s into phase %s", abortedAt(a.At), a.Phase)
	if a.Case != "" {
		s += " of case " + a.Case
	}
	s += ": " + abortedRule(a) + " failed " + abortedWindow(a.Window)
	if a.Actual != "" {
		s += ": " + a.Actual
	}
	return oneLine(s)
}

// consoleAborted is the console's banner for an aborted scenario.
func consoleAborted(a *runner.Aborted) string {
	return "⛔ ABORTED " + abortedText(a) + ". The load was stopped there; the run fails.\n\n"
}

// mdAborted is the Markdown banner for an aborted scenario.
func mdAborted(a *runner.Aborted) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> ⛔ **Aborted** at %s into phase %s", abortedAt(a.At), mdCode(a.Phase))
	if a.Case != "" {
		b.WriteString(" of " + mdCode(a.Case))
	}
	fmt.Fprintf(&b, ": %s failed %s", mdCode(abortedRule(a)), abortedWindow(a.Window))
	if a.Actual != "" {
		b.WriteString(": " + mdText(a.Actual))
	}
	b.WriteString(". The load was stopped there; the run fails.\n\n")
	return b.String()
}

// abortVerdict reports whether v judged the rule that aborted the run.
func abortVerdict(a *runner.Aborted, v assertions.Verdict) bool {
	if a == nil || (a.Case != "" && v.Case != a.Case) {
		return false
	}
	return (a.Name != "" && v.Name == a.Name) || (a.Name == "" && v.Rule == a.Rule)
}

// junitAbortFailure is the failure of the aborting threshold's testcase.
func junitAbortFailure(a *runner.Aborted, v *assertions.Verdict) *junitProblem {
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
		Message: "aborted " + abortedText(a),
		Type:    "abort",
		Body:    xmlSafe(b.String()),
	}
}
