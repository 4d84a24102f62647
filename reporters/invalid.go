package reporters

import (
	"bytes"
	"fmt"

	"github.com/loadgate/loadgate/results"
)

// A run whose load generator was saturated measured the load tester, not
// the server (SPEC §6). Every report says so, so that an overloaded CI
// runner is never read as a slow server.

// mdInvalid writes the invalid-run banner, if any case needs it.
func mdInvalid(b *bytes.Buffer, run *results.Run) {
	cases := results.Saturated(run)
	if len(cases) == 0 {
		return
	}
	b.WriteString("> ⛔ **Invalid run: the load generator was saturated.** These figures describe loadgate's limits, not the server's; rerun on a less loaded machine or with a lower rate.\n")
	for _, c := range cases {
		fmt.Fprintf(b, "> - %s / %s: %s\n", mdText(c.Scenario), mdText(c.ID), mdText(c.Reason))
	}
	b.WriteString("\n")
}
