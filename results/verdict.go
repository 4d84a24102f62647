package results

import "github.com/loadgate/loadgate/scenarios"

// Status is the outcome of one threshold on one case.
type Status string

// Threshold outcomes. A failing rule of severity warn has StatusFail too;
// Verdict.Fails tells whether it fails the run.
const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	// StatusSkip: the rule could not be judged (it needs a baseline that is
	// not loaded, or its case produced no measured phase).
	StatusSkip Status = "skip"
	// StatusError: evaluating the rule failed at run time (e.g. a missing
	// map key); it counts as a failure of its severity.
	StatusError Status = "error"
	// StatusInconclusive: the rule's outcome hangs on a regressed()
	// comparison that the trials could not decide (too few of them, or too
	// much spread). It fails the run only with FailOnInconclusive.
	StatusInconclusive Status = "inconclusive"
	// StatusNotJudged: the case's figures describe loadgate, not the
	// server (its generator saturated, or it applied less of the load
	// than its tolerance; results.Invalidity), so no rule is judged on
	// them. It never passes nor fails a rule; the run itself is invalid.
	StatusNotJudged Status = "not_judged"
	// StatusIncomparable: the rule compares with a baseline case (or a
	// same-job reference target) whose load was shaped differently
	// (scenarios.LoadDifferences): "concurrency 4 → 1" says nothing about
	// the code. Like an inconclusive verdict it fails the run only with
	// FailOnInconclusive; its reason names each difference.
	StatusIncomparable Status = "incomparable"
)

// ReasonIncomparable begins the reason of an incomparable verdict against
// a baseline, followed by the differences; ReasonIncomparableTarget the
// same against a same-job reference target.
const (
	ReasonIncomparable       = "not compared: the load changed since the baseline: "
	ReasonIncomparableTarget = "not compared: the two targets' loads differ: "
)

// ReasonInvalid begins the reason of a verdict not judged on an invalid
// case, followed by why it is invalid.
const ReasonInvalid = "invalid run — not judged: "

// Verdict is one threshold judged on one case.
type Verdict struct {
	Case     string             `json:"case"`   // the case's id (CaseRun.ID)
	Target   string             `json:"target"` // target name
	Phase    string             `json:"phase,omitempty"`
	Name     string             `json:"name"` // threshold name; the rule when unnamed
	Rule     string             `json:"rule"`
	Severity scenarios.Severity `json:"severity"`
	Status   Status             `json:"status"`
	// Actual lists the values the rule saw, e.g. "p99 = 63.2ms, rps = 1234.5",
	// and for regressed() the medians compared.
	Actual string `json:"actual,omitempty"`
	// Reason explains a skip or an error, and for a rule that calls
	// regressed() the judgement behind the status, e.g. "rps 12.3% lower,
	// beyond the 5.0% tolerance and significant (p = 0.008, 5 vs 5 trials)".
	Reason string        `json:"reason,omitempty"`
	Pos    scenarios.Pos `json:"pos"` // of the rule in the scenario file
	// BaselineTarget is set on a verdict of a rule that reads baseline or
	// calls regressed() on a case whose target names a baseline_target:
	// the rule compared with that target's case of the same matrix values
	// in the same run, not with --baseline.
	BaselineTarget string `json:"baseline_target,omitempty"`
	// FailOnInconclusive is set on an inconclusive or incomparable verdict
	// of a run that treats those as failures (--fail-on-inconclusive), so
	// the verdict alone tells whether it failed the run.
	FailOnInconclusive bool `json:"fail_on_inconclusive,omitempty"`
}

// Fails reports whether this verdict fails the run (exit code 1).
func (v Verdict) Fails() bool {
	if v.Severity == scenarios.SeverityWarn {
		return false
	}
	switch v.Status {
	case StatusFail, StatusError:
		return true
	case StatusInconclusive, StatusIncomparable:
		return v.FailOnInconclusive
	}
	return false
}
