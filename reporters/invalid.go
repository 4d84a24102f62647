package reporters

import (
	"bytes"
	"fmt"

	"github.com/loadgate/loadgate/results"
)

// A run whose figures describe the load generator rather than the server
// (its generator saturated, or it sent too little of its open-model load;
// results.Invalidity) is invalid (SPEC §6): every headline says "invalid —
// not judged", its thresholds are shown not judged, and JUnit has an
// <error>, so that an overloaded CI runner is never read as a slow server
// nor as a green build.

// invalidAdvice is what to do about an invalid run.
const invalidAdvice = "These figures describe loadgate's limits, not the server's, so no threshold was judged: rerun on a less loaded machine, with a lower rate, or split the load across machines (--segment)."

// JUnit error of an invalid scenario: a testcase of its own, as for an
// interrupted one.
const (
	junitInvalidCase = "load applied"
	junitInvalidType = "invalid"
	// junitInvalidPrefix begins the error's message, followed by why.
	junitInvalidPrefix = "invalid run — not judged: "
)

// mdInvalid writes the invalid-run banner, if any case needs it, and a
// note for each valid case whose generator was busy.
func mdInvalid(b *bytes.Buffer, run *results.Run) {
	for _, sr := range run.Scenarios {
		for _, c := range sr.Cases {
			if note := busyNote(c.Phases); note != "" {
				fmt.Fprintf(b, "> ℹ️ %s / %s: %s\n\n", mdText(sr.Name), mdText(c.ID), mdText(note))
			}
		}
	}
	cases := results.InvalidCases(run)
	if len(cases) == 0 {
		return
	}
	b.WriteString("> ⚠ **Invalid — not judged.** " + invalidAdvice + "\n")
	for _, c := range cases {
		fmt.Fprintf(b, "> - %s / %s: %s\n", mdText(c.Scenario), mdText(c.ID), mdText(c.Reason))
	}
	b.WriteString("\n")
}

// consoleInvalid is what the console prints after an invalid case's
// summary, or after a valid one whose generator was busy.
func consoleInvalid(b *bytes.Buffer, cr *results.CaseResult) {
	measured := cr.Measured("")
	if why := results.Invalidity(measured); why != "" {
		fmt.Fprintf(b, "⚠ INVALID — not judged: %s: %s. %s\n\n", cr.ID, why, invalidAdvice)
		return
	}
	if note := busyNote(measured); note != "" {
		fmt.Fprintf(b, "note: %s: %s\n\n", cr.ID, note)
	}
}

// busyNote says that a phase's generator was busy yet sent its load, so
// the phase is judged; "" when no valid phase had a busy generator.
func busyNote(phases []*results.PhaseResult) string {
	if results.Invalidity(phases) != "" {
		return ""
	}
	for _, p := range phases {
		if g := p.Generator; g.Saturated {
			return "phase " + p.Name + ": the generator was busy (" + g.Reason + ") but sent its load, so it is judged; its latencies may include loadgate's own delay"
		}
	}
	return ""
}

// junitInvalid is the testcase that marks a scenario with invalid cases.
func junitInvalid(sr *results.ScenarioRun) (junitCase, bool) {
	var body string
	first := ""
	for _, c := range sr.Cases {
		if why := c.Invalidity(); why != "" {
			if first == "" {
				first = c.ID + ": " + why
			}
			body += c.ID + ": " + why + "\n"
		}
	}
	if first == "" {
		return junitCase{}, false
	}
	return junitCase{
		Name: junitInvalidCase,
		Error: &junitProblem{
			Message: junitInvalidPrefix + oneLine(first),
			Type:    junitInvalidType,
			Body:    xmlSafe(body + invalidAdvice + "\n"),
		},
	}, true
}

// scenarioInvalid reports whether some case of sr is invalid.
func scenarioInvalid(sr *results.ScenarioRun) bool {
	for _, c := range sr.Cases {
		if c.Invalidity() != "" {
			return true
		}
	}
	return false
}
