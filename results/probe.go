package results

import "time"

// Probe is one load of a capacity search: an open-model rate held for the
// search's step (after an unmeasured warm-up at the same rate), judged
// against the phase's SLO.
type Probe struct {
	Kind      string        `json:"kind"`     // "grow" (exponential), "bisect" or "confirm"
	Rate      float64       `json:"rate"`     // requested, requests/s
	Achieved  float64       `json:"achieved"` // succeeded requests per second measured
	Requests  int64         `json:"requests"`
	Failed    int64         `json:"failed"`
	ErrorRate float64       `json:"error_rate"`
	P50       time.Duration `json:"p50_ns"`
	P99       time.Duration `json:"p99_ns"`
	Start     time.Time     `json:"start"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	Passed    bool          `json:"passed"`           // met the SLO
	Reason    string        `json:"reason,omitempty"` // why not: the SLO's values, or the generator's state
	// Saturated marks a probe the generator, not the server, limited: it
	// neither passes nor fails the SLO, and the search stops there.
	Saturated bool `json:"saturated,omitempty"`
	// Left counts the requests still waiting for an answer when the
	// probe's step ended (abandoned, or unfinished after its graceful
	// stop): a server with an unbounded queue may still be serving them
	// while the next probe starts.
	Left int64 `json:"left,omitempty"`
	// Drain is what the probe did, before its measured step, so as not to
	// start behind the backlog of the probe before it: set only when that
	// probe failed.
	Drain *ProbeDrain `json:"drain,omitempty"`
}

// ProbeDrain is how a probe after a failed one made sure the server had
// served that one's backlog before its step was measured: an idle pause
// long enough to serve what was left, then a warm-up extended until its
// last two seconds show a steady state.
type ProbeDrain struct {
	// Pause is the idle time before the warm-up: the previous probe's
	// Left at its achieved rate, and a tenth more; at most 30 s.
	Pause time.Duration `json:"pause_ns"`
	// Extensions counts the warm-ups run beyond the first, each as long
	// as the first; at most 4.
	Extensions int `json:"extensions"`
	// Steady: the last two seconds of the warm-up showed neither a
	// backlog draining nor one growing. False when the warm-up ran out of
	// extensions while still draining, or showed the rate itself over
	// capacity (then the step was measured at once).
	Steady bool   `json:"steady"`
	Note   string `json:"note"` // in words, e.g. "warm-up extended 2× until steady"
}

// SearchResult is what a capacity-search phase found.
type SearchResult struct {
	Probes []Probe `json:"probes"`
	// Capacity is the highest rate that met the SLO (and every
	// confirmation), requests/s; 0 when even the first rate failed.
	Capacity float64 `json:"capacity"`
	// Pass and Fail are the final bracket: the highest passing and the
	// lowest failing rate; Fail is 0 when no probe failed (Max met the SLO,
	// or the generator stopped the search).
	Pass float64 `json:"pass"`
	Fail float64 `json:"fail"`
	// LimitedByGenerator: the generator saturated before the SLO broke, so
	// Capacity is only a lower bound ("capacity ≥ X") and the phase is
	// invalid.
	LimitedByGenerator bool   `json:"limited_by_generator,omitempty"`
	Reason             string `json:"reason"` // how the search ended, in words
}

// Aborted says why a run stopped early: an `abort: true` threshold failed
// while its phase ran (SPEC §4).
type Aborted struct {
	Case   string        `json:"case"`
	Phase  string        `json:"phase"`
	Name   string        `json:"name"` // the threshold's name (its rule when unnamed)
	Rule   string        `json:"rule"`
	At     time.Duration `json:"at_ns"`               // since the phase started
	Window time.Duration `json:"window_ns,omitempty"` // 0 = the whole phase so far
	Actual string        `json:"actual"`              // the values the rule saw, e.g. "p99 = 812ms"
}

// NoCapacity reports whether a search has no capacity at all: a merge of
// segments where one found none of its own (no probes, nothing passed),
// or a search the generator stopped, whose figure is a lower bound only.
func (s *SearchResult) NoCapacity() bool {
	return s.LimitedByGenerator || (len(s.Probes) == 0 && s.Pass == 0 && s.Capacity == 0)
}
