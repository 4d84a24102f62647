package scenarios

import "time"

// Phase is one stage of a case's load, in one of two load models.
//
// Closed model (Rate zero): Concurrency workers each send a request, wait
// for its response, think, and send the next.
//
// Open model (Rate set): requests arrive on a schedule independent of
// responses (wrk2 -R, vegeta, k6 constant-arrival-rate); at most MaxInFlight
// are outstanding, and latency runs from each request's scheduled time.
type Phase struct {
	Name        string
	Pos         Pos
	Warmup      bool          // run and shown, but never enters results.json metrics or rules
	Duration    time.Duration // 0 = no time limit (Requests must then be > 0)
	Requests    int64         // total across workers; 0 = no count limit
	Concurrency int           // closed model: number of workers (the ramp's end value), ≥ 1; 0 in the open model
	// ConcurrencyFrom > 0 is a concurrency ramp `concurrency: {from, to}`:
	// the number of running workers grows linearly from ConcurrencyFrom to
	// Concurrency across Duration (which is then required).
	ConcurrencyFrom int
	RampUp          time.Duration // closed model: workers start evenly over this span
	ThinkTime       time.Duration // closed model: pause after each response, excluded from latency
	Rate            Rate          // open model when Rate.Open()
	MaxInFlight     int           // open model: cap on requests on the wire; default DefaultMaxInFlight
	// GracefulStop is how long the requests still in flight when the
	// phase stops sending may take to be answered, each one at most its
	// target's timeout; those still waiting then fail as unfinished.
	// Default DefaultGracefulStop (k6's gracefulStop); 0 gives up at once.
	GracefulStop time.Duration
	Trials       int // measured phases: run the phase this many times (≥ 1; default 1)
	// Search, when set, makes this a capacity-search phase (SPEC §14): Rate,
	// Concurrency, Duration and Requests are then unset, and the probes are
	// open-model loads at the rates the search picks.
	Search *Search
	// Adaptive, when set, replaces a fixed Trials count (Trials is then
	// Adaptive.Min): trials are added until every regressed() is decisive.
	Adaptive *AdaptiveTrials
	// Interleave (with Trials > 1) alternates the trials of the targets of a
	// same-job A/B comparison — A B A B … — so that drift of the machine
	// affects both alike, instead of running all of A's trials first.
	Interleave bool
}

// DefaultGracefulStop is a phase's graceful_stop when the scenario does
// not say: k6's gracefulStop, capped by the target's timeout.
const DefaultGracefulStop = 30 * time.Second

// DefaultMaxInFlight caps an open-model phase's outstanding requests when
// the scenario does not say.
const DefaultMaxInFlight = 1000

// Rate is an open-model arrival rate in requests per second, constant when
// From == To, else ramping linearly from From to To across the phase.
type Rate struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// Open reports whether the phase uses the open model.
func (r Rate) Open() bool { return r.From > 0 || r.To > 0 }
