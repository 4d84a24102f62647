package cli

import (
	"flag"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/loadgate/loadgate/scenarios"
)

// caseSelection is run's --target and --case: which cases of the
// scenarios run. Empty, every case runs. A case runs when its target
// matches a --target pattern (or none is given) and its ID matches a
// --case pattern (or none is given); a pattern is a name, or a glob of
// path.Match. The reference target of a selected case's baseline_target
// runs too, with the same matrix values: a same-job A/B is judged on the
// pair or not at all.
type caseSelection struct {
	targets, cases patternsFlag
}

// patternsFlag collects a repeatable pattern flag. Its LOADGATE_* form
// holds one pattern per line (names never hold a newline); given on the
// command line, the flag replaces the variable's patterns.
type patternsFlag struct {
	list    []string
	fromEnv bool // list holds the variable's patterns, not yet replaced
}

func (p *patternsFlag) String() string { return strings.Join(p.list, ", ") }

func (p *patternsFlag) Set(s string) error {
	if _, err := path.Match(s, ""); err != nil || s == "" {
		return fmt.Errorf("%q is not a name nor a pattern such as \"api*\" or \"web concurrency=?\"", s)
	}
	if p.fromEnv {
		p.list, p.fromEnv = nil, false
	}
	p.list = append(p.list, s)
	return nil
}

// patternsFromEnv reads a LOADGATE_* variable of patterns, one per line.
func patternsFromEnv(env Env, name string) patternsFlag {
	var list []string
	for _, line := range strings.Split(env.Getenv(envName(name)), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			list = append(list, line)
		}
	}
	return patternsFlag{list: list, fromEnv: len(list) > 0}
}

func (s *caseSelection) register(fs *flag.FlagSet, env Env) {
	s.targets, s.cases = patternsFromEnv(env, "target"), patternsFromEnv(env, "case")
	fs.Var(&s.targets, "target", "run only the cases of the targets named `NAME`, or matching a glob such as \"api*\" (repeatable; with --case, a case must match both; the baseline_target of a selected target runs too)")
	fs.Var(&s.cases, "case", "run only the case whose ID is `ID` (\"web concurrency=100\"), or the cases matching a glob such as \"web concurrency=*\" (repeatable)")
}

// empty reports whether every case runs.
func (s caseSelection) empty() bool { return len(s.targets.list) == 0 && len(s.cases.list) == 0 }

// matches reports whether name is pattern, or matches it as a glob.
func matches(pattern, name string) bool {
	if pattern == name {
		return true
	}
	ok, _ := path.Match(pattern, name) // patterns were checked by Set
	return ok
}

func matchesAny(patterns []string, name string) bool {
	return len(patterns) == 0 || slices.ContainsFunc(patterns, func(p string) bool { return matches(p, name) })
}

// apply keeps the selected cases of plans, and only the plans with one.
// A pattern that matches nothing in any scenario, or patterns that
// select no case together, are usage errors naming what there is; notes
// say what was left out and which reference targets were added.
func (s caseSelection) apply(plans []plan) (kept []plan, notes []string, err error) {
	if s.empty() {
		return plans, nil, nil
	}
	if err := s.checkPatterns(plans); err != nil {
		return nil, nil, err
	}
	for _, p := range plans {
		sc := p.scenario
		picked, refs := s.pick(sc)
		if len(picked) == 0 {
			notes = append(notes, fmt.Sprintf("scenario %q: no case selected by %s; not run", sc.Name, s.flags()))
			continue
		}
		note := fmt.Sprintf("scenario %q: running %d of %d cases, selected by %s", sc.Name, len(picked), len(sc.Cases), s.flags())
		for _, r := range refs {
			note += fmt.Sprintf("; target %q runs too, as the baseline_target of %q", r[1], r[0])
		}
		notes = append(notes, note)
		cp := *sc
		cp.Cases = picked
		p.scenario = &cp
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return nil, nil, fmt.Errorf("%s select no case together: %s (nothing was sent)", s.flags(), available(plans, "case", func(c *scenarios.Case) string {
			if matchesAny(s.targets.list, c.Target.Name) {
				return c.ID
			}
			return ""
		}))
	}
	return kept, notes, nil
}

// pick is the cases of sc that s selects, in scenario order, with the
// reference cases of their baseline_targets; refs lists the {target,
// reference} pairs that brought a reference target in.
func (s caseSelection) pick(sc *scenarios.Scenario) (picked []scenarios.Case, refs [][2]string) {
	keep := make([]bool, len(sc.Cases))
	for i, c := range sc.Cases {
		keep[i] = matchesAny(s.targets.list, c.Target.Name) && matchesAny(s.cases.list, c.ID)
	}
	added := make([]bool, len(sc.Cases))
	for i, c := range sc.Cases {
		ref := c.Target.BaselineTarget
		if !keep[i] || added[i] || ref == "" || ref == c.Target.Name {
			continue
		}
		for j, r := range sc.Cases {
			if r.Target.Name != ref || keep[j] || !sameValues(r.Matrix, c.Matrix) {
				continue
			}
			keep[j], added[j] = true, true
			if pair := [2]string{c.Target.Name, ref}; !slices.Contains(refs, pair) {
				refs = append(refs, pair)
			}
		}
	}
	for i, c := range sc.Cases {
		if keep[i] {
			picked = append(picked, c)
		}
	}
	return picked, refs
}

// sameValues reports whether two cases have the same matrix values, as
// a same-job A/B pairs them.
func sameValues(a, b []scenarios.MatrixValue) bool {
	return slices.EqualFunc(a, b, func(x, y scenarios.MatrixValue) bool { return x.Key == y.Key && x.Text == y.Text })
}

// checkPatterns refuses a pattern that matches no target, or no case ID,
// of any scenario: a typo must not run nothing, or everything else.
func (s caseSelection) checkPatterns(plans []plan) error {
	var problems []string
	for _, kind := range []struct {
		flag, noun string
		list       []string
		name       func(*scenarios.Case) string
	}{
		{"--target", "target", s.targets.list, func(c *scenarios.Case) string { return c.Target.Name }},
		{"--case", "case", s.cases.list, func(c *scenarios.Case) string { return c.ID }},
	} {
		var unmatched []string
		for _, pat := range kind.list {
			found := false
			for _, p := range plans {
				for i := range p.scenario.Cases {
					found = found || matches(pat, kind.name(&p.scenario.Cases[i]))
				}
			}
			if !found {
				unmatched = append(unmatched, strconv.Quote(pat))
			}
		}
		switch len(unmatched) {
		case 0:
			continue
		case 1:
			problems = append(problems, fmt.Sprintf("%s %s matches no %s: %s", kind.flag, unmatched[0], kind.noun, available(plans, kind.noun, kind.name)))
		default:
			problems = append(problems, fmt.Sprintf("%s %s match no %s: %s", kind.flag, strings.Join(unmatched, ", "), kind.noun, available(plans, kind.noun, kind.name)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s (nothing was sent)", strings.Join(problems, "\n"))
	}
	return nil
}

// maxListed bounds how many names a refusal lists per scenario: a large
// matrix has thousands of case IDs.
const maxListed = 40

// available lists the distinct names that name gives the cases of each
// scenario ("" leaves a case out), redacted as the scenario's outputs are:
// `scenario "s" has "api", "web"; scenario "t" has none`.
func available(plans []plan, noun string, name func(*scenarios.Case) string) string {
	var per []string
	for _, p := range plans {
		sc := p.scenario
		var names []string
		for i := range sc.Cases {
			if n := name(&sc.Cases[i]); n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			per = append(per, fmt.Sprintf("scenario %q has no such %s", sc.Name, noun))
			continue
		}
		quoted := make([]string, 0, min(len(names), maxListed))
		for _, n := range names[:min(len(names), maxListed)] {
			quoted = append(quoted, strconv.Quote(sc.Redact(n)))
		}
		more := ""
		if len(names) > maxListed {
			more = fmt.Sprintf(" and %d more", len(names)-maxListed)
		}
		per = append(per, fmt.Sprintf("scenario %q has %s%s", sc.Name, strings.Join(quoted, ", "), more))
	}
	return strings.Join(per, "; ")
}

// flags names the selection flags given, for notes and errors.
func (s caseSelection) flags() string {
	var given []string
	if len(s.targets.list) > 0 {
		given = append(given, "--target "+quoteAll(s.targets.list))
	}
	if len(s.cases.list) > 0 {
		given = append(given, "--case "+quoteAll(s.cases.list))
	}
	return strings.Join(given, " and ")
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
