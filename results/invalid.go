package results

import (
	"errors"
	"fmt"
)

// An invalid run measured loadgate, not the server (SPEC §6): a phase's
// generator saturated, or it sent less of its open-model load than
// AppliedTolerance without the server holding it back, or a
// capacity search was stopped by the generator (Invalidity). Its
// thresholds are not judged, it is never shown as passed, it exits 3, and
// it is never a baseline, compared or merged: a p99 of loadgate's own
// queue says nothing about the server.

// InvalidCase is one case whose figures describe the generator: its
// scenario, its ID and why, in words.
type InvalidCase struct {
	Scenario, ID, Reason string
}

// InvalidCases lists the run's invalid cases in run order.
func InvalidCases(run *Run) []InvalidCase {
	if run == nil {
		return nil
	}
	var out []InvalidCase
	for _, sr := range run.Scenarios {
		for _, c := range sr.Cases {
			if why := c.Invalidity(); why != "" {
				out = append(out, InvalidCase{Scenario: sr.Name, ID: c.ID, Reason: why})
			}
		}
	}
	return out
}

// Invalidity says why the case's measured phases describe the generator,
// "" when they describe the server.
func (c *CaseRun) Invalidity() string {
	return Invalidity(c.Phases)
}

// Invalid reports whether any case of the run is invalid.
func (r *Run) Invalid() bool { return len(InvalidCases(r)) > 0 }

// InvalidReason is the whole run's reason in one line: "flood / local:
// phase m: the generator sent 2 % of the requested 2,000,000/s …", with a
// count of the other invalid cases; "" for a valid run.
func (r *Run) InvalidReason() string {
	cases := InvalidCases(r)
	if len(cases) == 0 {
		return ""
	}
	s := cases[0].Scenario + " / " + cases[0].ID + ": " + cases[0].Reason
	if n := len(cases) - 1; n == 1 {
		s += " (and 1 more case)"
	} else if n > 1 {
		s += fmt.Sprintf(" (and %d more cases)", n)
	}
	return s
}

// ErrInvalid is wrapped by every refusal of an invalid document.
var ErrInvalid = errors.New("the run is invalid")

// RefuseInvalid returns an error when run is invalid; role says what the
// document cannot be, e.g. "a baseline".
func RefuseInvalid(run *Run, role string) error {
	why := run.InvalidReason()
	if why == "" {
		return nil
	}
	return fmt.Errorf("%w (%s); an invalid run cannot be %s", ErrInvalid, why, role)
}

// notJudged turns the verdicts of invalid cases into StatusNotJudged, for
// documents judged by a loadgate that still judged them: whatever such a
// verdict said, it was about the generator.
func notJudged(run *Run) {
	for _, sr := range run.Scenarios {
		for _, c := range sr.Cases {
			why := c.Invalidity()
			if why == "" {
				continue
			}
			for i := range c.Verdicts {
				if v := &c.Verdicts[i]; v.Status != StatusNotJudged {
					v.Status, v.Reason, v.Actual = StatusNotJudged, ReasonInvalid+why, ""
					v.FailOnInconclusive = false
				}
			}
		}
	}
}
