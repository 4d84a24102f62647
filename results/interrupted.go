package results

import (
	"errors"
	"fmt"
)

// An interrupted run measured only part of its load: its figures are
// partial and its verdicts judge a different load than the scenario's.
// It is never shown as passed and never compared; merge names an
// interrupted part as incomplete and judges nothing without it.

// ErrInterrupted is wrapped by every refusal of an interrupted document.
var ErrInterrupted = errors.New("the run was interrupted")

// RefuseInterrupted returns an error when run was interrupted; role says
// what the document cannot be, e.g. "a baseline".
func RefuseInterrupted(run *Run, role string) error {
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
