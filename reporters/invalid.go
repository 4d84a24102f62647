package reporters

import (
	"bytes"
	"fmt"
)

// A run whose load generator was saturated measured the load tester, not
// the server (SPEC §6). Every report says so, so that an overloaded CI
// runner is never read as a slow server.

// saturatedCase is one case whose generator could not deliver its load.
type saturatedCase struct {
	scenario, id, reason string
}

// saturated lists the run's cases with a saturated generator.
func saturated(run *Run) []saturatedCase {
	var out []saturatedCase
	for _, sr := range run.Scenarios {
		for _, c := range sr.Cases {
			if g := c.Stats.Generator; g.Saturated {
				out = append(out, saturatedCase{scenario: sr.Name, id: c.ID, reason: g.Reason})
				continue
			}
			// A search the generator stopped found a lower bound only.
			if s := caseSearch(c); s != nil && s.LimitedByGenerator {
				out = append(out, saturatedCase{scenario: sr.Name, id: c.ID, reason: "capacity search limited by the generator: " + s.Reason})
			}
		}
	}
	return out
}

// Invalid reports whether any case's load generator was saturated,
// during a capacity search included.
func (r *Run) Invalid() bool { return len(saturated(r)) > 0 }

// mdInvalid writes the invalid-run banner, if any case needs it.
func mdInvalid(b *bytes.Buffer, run *Run) {
	cases := saturated(run)
	if len(cases) == 0 {
		return
	}
	b.WriteString("> ⛔ **Invalid run: the load generator was saturated.** These figures describe loadgate's limits, not the server's; rerun on a less loaded machine or with a lower rate.\n")
	for _, c := range cases {
		fmt.Fprintf(b, "> - %s / %s: %s\n", mdText(c.scenario), mdText(c.id), mdText(c.reason))
	}
	b.WriteString("\n")
}
