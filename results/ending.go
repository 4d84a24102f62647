package results

import "time"

// Why a phase stopped sending (PhaseResult.Ended). A phase that ran its
// course ends by duration or requests; any other reason cut it short, and
// reports say so.
const (
	EndDuration    = "duration"     // its duration passed
	EndRequests    = "requests"     // its request count was sent
	EndData        = "data"         // a data source with on_exhausted: stop ran out of rows
	EndAborted     = "aborted"      // an abort: true rule failed
	EndInterrupted = "interrupted"  // the run was interrupted (SIGINT, SIGTERM)
	EndSearch      = "search"       // a capacity search decided
	EndGenerator   = "generator"    // the generator could not keep up and gave up
	EndServer      = "server"       // the server under test exited
	EndSchedule    = "schedule"     // an open model's arrivals were all sent
	EndTimeLimit   = "time limit"   // a phase with only a request count hit the run's hard deadline
	EndClientSetup = "client setup" // a worker's client could not be made
)

// Stall is a time in which requests were waiting and none was answered:
// what a frozen server looks like, however short its phase.
type Stall struct {
	// At is when the stall began, from the phase's start: the last answer
	// before it (or the phase's start).
	At time.Duration `json:"at_ns"`
	// Duration is how long nothing was answered.
	Duration time.Duration `json:"duration_ns"`
	// Waiting is the most requests waiting at once during the stall.
	Waiting int64 `json:"waiting"`
}

// MinStall is the shortest quiet time with requests waiting that counts as
// a stall: a slow answer is not a frozen server.
const MinStall = time.Second

// Why adaptive trials stopped (PhaseResult.TrialsStop).
const (
	TrialsDecisive    = "decisive"    // every regressed() rule was pass or regressed
	TrialsMax         = "max"         // max trials ran, some rule still inconclusive
	TrialsNoJudge     = "no judge"    // the run cannot judge regressed(): min trials
	TrialsInterrupted = "interrupted" // the run stopped (Ctrl-C, an abort rule)
)
