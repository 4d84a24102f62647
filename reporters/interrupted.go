package reporters

import (
	"errors"
	"fmt"
)

// An interrupted run measured only part of its load: its figures are
// partial and its verdicts judge a different load than the scenario's.
// It is never shown as passed, never compared and never merged.

// interruptedHeadline is the Markdown verdict of an interrupted run.
const interruptedHeadline = "⏹ loadgate: interrupted — not judged"

// interruptedConsole is what the console prints for an interrupted scenario.
const interruptedConsole = "⏹ INTERRUPTED — not judged: the run was stopped early; figures are partial and the verdicts below cover only what was measured.\n\n"

// JUnit error of an interrupted scenario: a testcase of its own, so that
// every JUnit consumer shows the suite as not green.
const (
	junitInterruptedCase    = "run completed"
	junitInterruptedMessage = "run interrupted: partial results"
	junitInterruptedType    = "interrupted"
)

// ErrInterrupted is wrapped by every refusal of an interrupted document.
var ErrInterrupted = errors.New("the run was interrupted")

// refuseInterrupted returns an error when run was interrupted; role says
// what the document cannot be, e.g. "a baseline".
func refuseInterrupted(run *Run, role string) error {
	if run == nil || !run.Interrupted && !anyScenarioInterrupted(run) {
		return nil
	}
	return fmt.Errorf("%w; an interrupted run cannot be %s", ErrInterrupted, role)
}

func anyScenarioInterrupted(run *Run) bool {
	for _, sr := range run.Scenarios {
		if sr.Interrupted {
			return true
		}
	}
	return false
}

// junitInterrupted is the testcase that marks an interrupted suite.
func junitInterrupted(classname string) junitCase {
	return junitCase{
		Name:      junitInterruptedCase,
		Classname: classname,
		Time:      fmtSeconds(0),
		Error: &junitProblem{
			Message: junitInterruptedMessage,
			Type:    junitInterruptedType,
			Body:    "The run was stopped (SIGINT/SIGTERM) before it finished: the figures are partial and the run is not judged.\n",
		},
	}
}
