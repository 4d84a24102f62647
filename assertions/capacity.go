package assertions

import (
	"fmt"
	"math"
	"slices"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// Reasons a rule reading capacity is skipped.
const (
	// ReasonNoSearch: the case (or its phase named by the threshold) has
	// no search phase, so there is no capacity to judge, not a capacity of 0.
	ReasonNoSearch = "no search phase"
	// ReasonNoBaselineSearch: the same, of the baseline case.
	ReasonNoBaselineSearch = "the baseline case has no search phase"
	// ReasonCapacityNaN: segments were merged and not every one found its
	// own capacity, so their sum would be made up.
	ReasonCapacityNaN = "capacity is not a number: not every segment found its own"
)

// summarize is results.Summarize with the capacity of the search phases
// among phases filled in when the runner has not: rules and baselines must
// see the same figure whichever filled it.
func summarize(phases []*results.PhaseResult) results.Stats {
	st := results.Summarize(phases)
	if st.Search == nil {
		st.Capacity, st.Search = capacityOf(phases)
	}
	return st
}

// capacityOf is what the search phases among phases found: the median of
// their trials' capacities (a phase run once is one trial), and the last
// search, marked limited by the generator when any search was. nil when no
// phase searched.
func capacityOf(phases []*results.PhaseResult) (float64, *results.SearchResult) {
	var searched []*results.PhaseResult
	var last results.SearchResult
	limited := false
	for _, p := range phases {
		if p.Search != nil {
			searched = append(searched, p)
			last = *p.Search
			limited = limited || p.Search.LimitedByGenerator
		}
	}
	if len(searched) == 0 {
		return 0, nil
	}
	var caps []float64
	for _, t := range results.TrialsOf(searched) {
		caps = append(caps, t.Capacity)
	}
	last.LimitedByGenerator = limited
	return medianOf(caps), &last
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// capacitySkip says why st's capacity cannot be judged, "" when it can.
// A search the generator limited found only a lower bound: judging it
// would pass or fail the server on the runner's account.
func capacitySkip(st results.Stats, whose string) string {
	switch s := st.Search; {
	case s == nil && whose == "":
		return ReasonNoSearch
	case s == nil:
		return ReasonNoBaselineSearch
	case s.LimitedByGenerator:
		return fmt.Sprintf("%scapacity ≥ %s (limited by the generator)", whose, units.FormatNumber(s.Capacity, units.Actual))
	case math.IsNaN(st.Capacity):
		return ReasonCapacityNaN
	}
	return ""
}
