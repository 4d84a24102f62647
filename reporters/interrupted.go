package reporters

// An interrupted run measured only part of its load: its figures are
// partial and its verdicts judge a different load than the scenario's.
// It is never shown as passed and never compared; merge names an
// interrupted part as incomplete and judges nothing without it.

// interruptedConsole is what the console prints for an interrupted scenario.
const interruptedConsole = "⏹ INTERRUPTED — not judged: the run was stopped early; figures are partial and the verdicts below cover only what was measured.\n\n"

// JUnit error of an interrupted scenario: a testcase of its own, so that
// every JUnit consumer shows the suite as not green.
const (
	junitInterruptedCase    = "run completed"
	junitInterruptedMessage = "run interrupted: partial results"
	junitInterruptedType    = "interrupted"
)

// junitInterrupted is the testcase that marks an interrupted suite.
func junitInterrupted() junitCase {
	return junitCase{
		Name: junitInterruptedCase,
		Error: &junitProblem{
			Message: junitInterruptedMessage,
			Type:    junitInterruptedType,
			Body:    "The run was stopped (SIGINT/SIGTERM) before it finished: the figures are partial and the run is not judged.\n",
		},
	}
}
