package reporters

import (
	"fmt"
	"strings"

	"github.com/loadgate/loadgate/results"
)

// headline is what every report says first about a run, in the same
// words everywhere: the console's last line, summary.md (and so the pull
// request's comment), report.html and the JUnit suite's properties.
type headline struct {
	Mark  string // the outcome's glyph: ✅ ❌ ⛔ ⏹ ⚠
	Class string // pass, fail, warn: the look of the outcome
	Text  string // "loadgate: passed · ⚠ 2 undecided (inconclusive 1, incomparable 1)"
}

// String is the headline as one line of text.
func (h headline) String() string { return h.Mark + " " + h.Text }

// Headline is a run's headline as one line, for the console and logs.
func Headline(run *results.Run) string { return runHeadline(run).String() }

// runHeadline decides the headline. An interrupted, invalid, aborted,
// not-carried-out run or a merge lacking a segment's load is never
// "passed" (one judged anyway by --allow-partial says so); a run that passed with verdicts
// it could not decide says how many, so that an undecided comparison never
// reads as a plain green pass.
func runHeadline(run *results.Run) headline {
	var h headline
	switch runOutcome(run) {
	case outcomeInterrupted:
		h = headline{"⏹", "warn", "loadgate: interrupted — not judged"}
	case outcomeInvalid:
		h = headline{"⚠", "fail", "loadgate: invalid — not judged"}
	case outcomeNotJudged:
		h = headline{"⚠", "fail", "loadgate: partial — " + run.Merged.PartialText() + "; thresholds not judged"}
	case outcomeAborted:
		h = headline{"⛔", "fail", "loadgate: aborted — " + oneLine(abortedRule(run.Aborted()))}
	case outcomeNotCarriedOut:
		h = headline{"❌", "fail", "loadgate: could not be carried out"}
	case outcomeFailed:
		h = headline{"❌", "fail", "loadgate: failed"}
	default:
		h = headline{"✅", "pass", "loadgate: passed"}
	}
	if n := partialNote(run); n != "" {
		h.Text += " · " + n
		if h.Class == "pass" {
			h.Class = "warn"
		}
	}
	if run.Interrupted || run.Invalid() {
		return h
	}
	if u := undecidedOf(run); u.total() > 0 {
		h.Text += " · ⚠ " + u.String()
		if h.Class == "pass" {
			h.Class = "warn"
		}
	}
	return h
}

// undecided counts the verdicts of a run that were neither passed nor
// failed because a comparison could not decide them.
type undecided struct {
	inconclusive, incomparable int
	failing                    int // of them, those --fail-on-inconclusive fails
}

func undecidedOf(run *results.Run) undecided {
	var u undecided
	for _, sr := range run.Scenarios {
		for _, v := range sr.AllVerdicts() {
			switch v.Status {
			case results.StatusInconclusive:
				u.inconclusive++
			case results.StatusIncomparable:
				u.incomparable++
			default:
				continue
			}
			if v.Fails() {
				u.failing++
			}
		}
	}
	return u
}

func (u undecided) total() int { return u.inconclusive + u.incomparable }

// String is e.g. "2 undecided (inconclusive 1, incomparable 1)", with
// what --fail-on-inconclusive made of them.
func (u undecided) String() string {
	var kinds []string
	if u.inconclusive > 0 {
		kinds = append(kinds, fmt.Sprintf("inconclusive %d", u.inconclusive))
	}
	if u.incomparable > 0 {
		kinds = append(kinds, fmt.Sprintf("incomparable %d", u.incomparable))
	}
	s := fmt.Sprintf("%d undecided (%s)", u.total(), strings.Join(kinds, ", "))
	if u.failing > 0 {
		s += ", failing the run by --fail-on-inconclusive"
	}
	return s
}
