package scenarios

import "time"

// Search is a capacity-search phase (SPEC §14): instead of one load, it
// probes open-model rates to find the highest one whose figures meet the
// SLO. Probes grow exponentially from From (doubling) until one fails the
// SLO or Max is reached, then bisect the bracket [highest pass, lowest
// fail] until it is within Precision; Confirm re-runs the found rate.
type Search struct {
	From float64 // first probe's rate, requests/s; > 0
	Max  float64 // highest rate probed, requests/s; ≥ From
	// Step is the measured time of one probe; each probe first runs
	// ProbeWarmup at its rate, unmeasured.
	Step        time.Duration
	ProbeWarmup time.Duration // default 1s
	// Precision ends the bisection when (fail − pass) / pass ≤ Precision,
	// a fraction in (0, 1), e.g. 0.05.
	Precision float64
	// SLO is an expr rule over a probe's metrics (the names of thresholds:
	// p99, error_rate, rps …), compiled when the scenario is loaded.
	SLO    string
	SLOPos Pos // of the rule text's first character
	// Confirm is how many times the found rate is run again; each run must
	// meet the SLO, else the search goes on below it. 0 = none.
	Confirm int
	// MaxInFlight caps each probe's outstanding requests, as the open
	// model's max_in_flight; default DefaultMaxInFlight.
	MaxInFlight int
}

// AdaptiveTrials is `trials: { min, max, until: decisive }`: a measured
// phase runs Min trials, then one more at a time (interleaved for a
// same-job A/B) until every regressed() rule of the case is decisive
// (pass or regressed) or Max trials have run.
type AdaptiveTrials struct {
	Min, Max int // 2 ≤ Min ≤ Max
}
