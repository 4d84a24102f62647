package assertions

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loadgate/loadgate/results"
)

// ErrNotComparable is wrapped by every refusal of Compare: the two
// documents cannot be judged against each other, and saying "no
// regression" about them would be a false green.
var ErrNotComparable = errors.New("not comparable")

// comparable refuses interrupted documents (partial figures against whole
// ones), invalid ones (figures of the generator, not the server) and
// documents with no scenario in common (two different tests).
func comparable(base, cand *results.Run, opts CompareOptions) error {
	for _, side := range []struct {
		name string
		run  *results.Run
	}{{opts.BaseName, base}, {opts.NewName, cand}} {
		if err := results.RefuseInterrupted(side.run, "compared"); err != nil {
			return fmt.Errorf("%s: %w", side.name, err)
		}
		if err := results.RefuseInvalid(side.run, "compared"); err != nil {
			return fmt.Errorf("%s: %w", side.name, err)
		}
	}
	bn, nn := scenarioNames(base), scenarioNames(cand)
	for _, n := range nn {
		if slices.Contains(bn, n) {
			return nil
		}
	}
	return fmt.Errorf("%w: different scenarios: %s has %s, %s has %s",
		ErrNotComparable, opts.BaseName, quotedList(bn), opts.NewName, quotedList(nn))
}

func scenarioNames(r *results.Run) []string {
	var out []string
	for _, sr := range r.Scenarios {
		out = append(out, sr.Name)
	}
	return out
}

func quotedList(names []string) string {
	if len(names) == 0 {
		return "no scenario"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// unmatched says why no case was compared, for the refusal's message.
func (c *Comparison) unmatched() string {
	var only, notRun []string
	for _, sc := range c.Scenarios {
		for _, id := range sc.OnlyBase {
			only = append(only, strconv.Quote(id)+" only in base")
		}
		for _, id := range sc.OnlyNew {
			only = append(only, strconv.Quote(id)+" only in new")
		}
		notRun = append(notRun, sc.NotRun...)
	}
	parts := only
	if len(notRun) > 0 {
		parts = append(parts, "measured nothing on one side: "+quotedList(notRun))
	}
	if len(parts) == 0 {
		return "neither has a case"
	}
	return strings.Join(parts, "; ")
}
