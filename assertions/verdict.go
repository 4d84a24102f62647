package assertions

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
)

// Verdict is one threshold judged on one case.
type Verdict struct {
	Case     string             `json:"case"`   // runner.CaseResult.ID
	Target   string             `json:"target"` // target name
	Phase    string             `json:"phase,omitempty"`
	Name     string             `json:"name"` // threshold name; the rule when unnamed
	Rule     string             `json:"rule"`
	Severity scenarios.Severity `json:"severity"`
	Status   Status             `json:"status"`
	// Actual lists the values the rule saw, e.g. "p99 = 63.2ms, rps = 1234.5".
	Actual string `json:"actual,omitempty"`
	// Reason explains a skip or an error.
	Reason string        `json:"reason,omitempty"`
	Pos    scenarios.Pos `json:"pos"` // of the rule in the scenario file
}

// Fails reports whether this verdict fails the run (exit code 1).
func (v Verdict) Fails() bool {
	return (v.Status == StatusFail || v.Status == StatusError) && v.Severity != scenarios.SeverityWarn
}
