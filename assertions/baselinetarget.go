package assertions

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// Same-job A/B (SPEC §6): a target with baseline_target is judged against
// the named target's case of the same matrix values in the same run. Both
// ran on the same machine, their trials interleaved, so the comparison
// cancels most of the noise that separates two CI runners; that is why it
// takes precedence over --baseline for the target that asks for it.

// baselineTargetOf is the baseline_target of c's target, "" for none. The
// scenario's case is asked first, since a target is resolved per matrix
// combination.
func baselineTargetOf(sc *scenarios.Scenario, c *results.CaseResult) string {
	if sc == nil {
		return ""
	}
	for i := range sc.Cases {
		if sc.Cases[i].ID == c.ID {
			return sc.Cases[i].Target.BaselineTarget
		}
	}
	for _, t := range sc.Targets {
		if t.Name == c.Target {
			return t.BaselineTarget
		}
	}
	return ""
}

// referenceCase finds the case of target with c's matrix values; nil when
// the run has none. c itself never counts, so a target naming itself
// compares with nothing rather than passing every comparison.
func referenceCase(cases []*results.CaseResult, c *results.CaseResult, target string) *results.CaseResult {
	for _, o := range cases {
		if o != c && o.Target == target && sameMatrix(o.Matrix, c.Matrix) {
			return o
		}
	}
	return nil
}

func sameMatrix(a, b []scenarios.MatrixValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		// DeepEqual: a matrix value is any, and == on interfaces panics
		// on values that are not comparable.
		if a[i].Key != b[i].Key || a[i].Text != b[i].Text || !reflect.DeepEqual(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// baselineCase is what `baseline` and regressed() compare with for one
// phase narrowing: the reference case of a same-job A/B, or else the
// --baseline run's same case. A reference case that could not be carried
// out is no baseline, as it is none in a results file.
func (cj *caseJudge) baselineCase(phase string) (results.BaselineCase, bool) {
	if cj.abTarget == "" {
		return cj.opts.Baseline.Case(cj.scenario, cj.c.ID, phase)
	}
	if cj.ref == nil || cj.ref.Err != "" {
		return results.BaselineCase{}, false
	}
	phases := cj.ref.Measured(phase)
	if len(phases) == 0 {
		return results.BaselineCase{}, false
	}
	bc := results.NewBaselineCase(phases)
	bc.Server = cj.ref.Server
	bc.Load = cj.refShape
	return bc, true
}

// shapeOf is the load shape of sc's case id; nil when sc does not have it.
func shapeOf(sc *scenarios.Scenario, id string) *scenarios.LoadShape {
	if sc == nil {
		return nil
	}
	for i := range sc.Cases {
		if sc.Cases[i].ID == id {
			s := scenarios.LoadShapeOf(&sc.Cases[i], sc.ServerOf(&sc.Cases[i]), sc.Secrets)
			return &s
		}
	}
	return nil
}

// loadDifferences lists how the load of what cj compares with (bc)
// differs from the case's own. A same-job reference target may differ in
// what it hits, which is the point of comparing it; never in how the load
// is applied.
func (cj *caseJudge) loadDifferences(bc results.BaselineCase, phase string) []string {
	if bc.Load == nil || cj.shape == nil {
		return nil
	}
	return scenarios.LoadDifferences(*bc.Load, *cj.shape, phase, cj.abTarget == "")
}

// incomparableReason is the reason of a verdict whose comparison differs
// in load (diffs).
func (cj *caseJudge) incomparableReason(diffs []string) string {
	if cj.abTarget != "" {
		return results.ReasonIncomparableTarget + strings.Join(diffs, ", ")
	}
	return results.ReasonIncomparable + strings.Join(diffs, ", ")
}

// noBaselineReason says why baselineCase found nothing.
func (cj *caseJudge) noBaselineReason(phase string) string {
	switch {
	case cj.abTarget == "":
		return ReasonNoBaselineCase
	case cj.ref == nil:
		return fmt.Sprintf("baseline target %q has no case with the same matrix values", cj.abTarget)
	case cj.ref.Err != "":
		return fmt.Sprintf("baseline target case %q was not carried out: %s", cj.ref.ID, cj.ref.Err)
	case phase != "":
		return fmt.Sprintf("baseline target case %q has no measured phase named %q", cj.ref.ID, phase)
	default:
		return fmt.Sprintf("baseline target case %q has no measured phase", cj.ref.ID)
	}
}
