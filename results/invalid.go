package results

// SaturatedCase is one case whose generator could not deliver its load:
// its scenario, its ID and why.
type SaturatedCase struct {
	Scenario, ID, Reason string
}

// Saturated lists the run's cases with a saturated generator.
func Saturated(run *Run) []SaturatedCase {
	var out []SaturatedCase
	for _, sr := range run.Scenarios {
		for _, c := range sr.Cases {
			if g := c.Stats.Generator; g.Saturated {
				out = append(out, SaturatedCase{Scenario: sr.Name, ID: c.ID, Reason: g.Reason})
				continue
			}
			// A search the generator stopped found a lower bound only.
			if s := CaseSearch(c); s != nil && s.LimitedByGenerator {
				out = append(out, SaturatedCase{Scenario: sr.Name, ID: c.ID, Reason: "capacity search limited by the generator: " + s.Reason})
			}
		}
	}
	return out
}

// Invalid reports whether any case's load generator was saturated,
// during a capacity search included.
func (r *Run) Invalid() bool { return len(Saturated(r)) > 0 }
