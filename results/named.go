package results

import (
	"fmt"
)

// NamedStats are the figures of one named request across a case's
// measured phases: a request of a weighted `requests:` mix, or a step of a
// flow (SPEC §12). They are derived from the phases' by_name entries and
// kept in results.json so that a reader needs no histogram to see them.
type NamedStats struct {
	Name string `json:"name"`
	Counters
	// RPS is succeeded requests per second of the case's measured wall
	// time; with trials it is the mean over all of them, not a median.
	RPS       float64      `json:"rps"`
	ErrorRate float64      `json:"error_rate"`
	Latency   Distribution `json:"latency"` // of succeeded requests
}

// NamedStatsOf summarises every named request of phases, in the order the
// phases list them (mix order, or the flow's step order).
func NamedStatsOf(phases []*PhaseResult) []NamedStats {
	var names []string
	seen := map[string]bool{}
	for _, p := range phases {
		for _, n := range p.ByName {
			if n != nil && !seen[n.Name] {
				seen[n.Name] = true
				names = append(names, n.Name)
			}
		}
	}
	out := make([]NamedStats, 0, len(names))
	for _, name := range names {
		st, _ := SummarizeNamed(phases, name)
		out = append(out, NamedStats{Name: name, Counters: st.Counters, RPS: st.RPS, ErrorRate: st.ErrorRate, Latency: st.Latency})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readFlowParts refuses a phase's null named-request entry, which every
// consumer would dereference, and gives absent histograms of its named
// requests and iterations no samples rather than a crash.
func readFlowParts(p *PhaseResult) error {
	for _, n := range p.ByName {
		if n == nil {
			return fmt.Errorf("phase %q: null request entry", p.Name)
		}
		if n.Latency == nil {
			n.Latency = NewHistogram()
		}
	}
	if it := p.Iterations; it != nil && it.Latency == nil {
		it.Latency = NewHistogram()
	}
	return nil
}
