package cli

import (
	"fmt"
	"slices"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// checkSameCases refuses parts that ran different cases of a scenario,
// which segments given different --target or --case selections do: a case
// run by some segments only would be judged on a share of its load as if
// it were the whole. The cases the parts ran together are taken as the
// selection, and each part must have run every one of them that its
// segment has a share of (scenarios.Split), as a segment of the
// same selection would. A part whose scenario errored, was aborted or
// interrupted stopped early, and says so itself.
func checkSameCases(parts []results.Part, m *results.Merged) error {
	for _, ms := range m.Scenarios {
		sc := ms.Scenario
		ran := map[string]string{} // case ID → the first part that ran it
		runs := make([]*results.ScenarioRun, len(parts))
		for i, p := range parts {
			for _, sr := range p.Run.Scenarios {
				if sr.Name != sc.Name {
					continue
				}
				runs[i] = sr
				for _, c := range sr.Cases {
					if _, ok := ran[c.ID]; !ok {
						ran[c.ID] = p.Name
					}
				}
			}
		}
		selected := *sc
		selected.Cases = slices.DeleteFunc(slices.Clone(sc.Cases), func(c scenarios.Case) bool { _, ok := ran[c.ID]; return !ok })
		for i, p := range parts {
			sr := runs[i]
			if sr == nil || sr.Error != "" || sr.Aborted != nil || sr.Interrupted || p.Run.Interrupted || p.Run.Segment == nil {
				continue
			}
			seg := scenarios.Segment{Index: p.Run.Segment.Index, Count: p.Run.Segment.Count}
			share, _ := scenarios.Split(&selected, seg)
			for _, c := range share.Cases {
				if !slices.ContainsFunc(sr.Cases, func(cr *results.CaseRun) bool { return cr.ID == c.ID }) {
					return fmt.Errorf("parts of different selections: scenario %q: %s (segment %s) did not run case %q, which %s ran; give every segment the same --target and --case",
						sc.Name, p.Name, p.Run.Segment, c.ID, ran[c.ID])
				}
			}
		}
	}
	return nil
}
