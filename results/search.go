package results

import (
	"github.com/loadgate/loadgate/scenarios"
)

// SearchSpec is what a case's capacity-search phase was asked for: a
// results file must say which SLO its probes were judged by and how narrow
// the bracket had to be, since the scenario may not be at hand when the
// file is rendered again.
type SearchSpec struct {
	Phase     string  `json:"phase"`
	SLO       string  `json:"slo"`
	Precision float64 `json:"precision"` // a fraction: 0.05 = 5 %
}

// SearchSpecs lists the search phases of case id in sc; nil when sc is nil
// or the case searched nothing.
func SearchSpecs(sc *scenarios.Scenario, id string) []SearchSpec {
	if sc == nil {
		return nil
	}
	var out []SearchSpec
	for i := range sc.Cases {
		if sc.Cases[i].ID != id {
			continue
		}
		for _, p := range sc.Cases[i].Phases {
			if s := p.Search; s != nil {
				out = append(out, SearchSpec{Phase: p.Name, SLO: s.SLO, Precision: s.Precision})
			}
		}
	}
	return out
}

// LoadShapeOf is the load shape of sc's case id; nil when sc is nil or
// has no such case.
func LoadShapeOf(sc *scenarios.Scenario, id string) *scenarios.LoadShape {
	if sc == nil {
		return nil
	}
	for i := range sc.Cases {
		if c := &sc.Cases[i]; c.ID == id {
			shape := scenarios.LoadShapeOf(c, sc.ServerOf(c), sc.Secrets)
			return &shape
		}
	}
	return nil
}

// SearchedPhases lists the phases that ran a capacity search.
func SearchedPhases(phases []*PhaseResult) []*PhaseResult {
	var out []*PhaseResult
	for _, p := range phases {
		if p.Search != nil {
			out = append(out, p)
		}
	}
	return out
}

// CaseSearch is the search that stands for the case: the one its stats
// carry, else that of its last search phase; nil when it searched nothing.
func CaseSearch(c *CaseRun) *SearchResult {
	if c.Stats.Search != nil {
		return c.Stats.Search
	}
	ps := SearchedPhases(c.Phases)
	if len(ps) == 0 {
		return nil
	}
	return ps[len(ps)-1].Search
}
