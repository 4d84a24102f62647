package scenarios

import (
	"errors"
	"slices"
	"strings"
)

// errVarCycle is what looking up a variable of a cycle gives where it is
// used. The cycle itself is reported once, where its variables are
// defined, so the uses add no diagnostic of their own (resolver.text).
var errVarCycle = errors.New("the variable is part of a variable cycle")

// varCycles finds the cycles among the variables of the file's `vars:`
// that refer to each other (a: '${b}', b: '${a}'), reports each at the
// key of its variable written first, and returns the names caught in one.
// Only a value the file gives counts: a variable set with --var or from
// the environment takes no part.
func (d *decoder) varCycles(vars []rawVar, t *varTable) map[string]bool {
	keys := map[string]int{} // name → index in vars, of the value in force
	for i, kv := range vars {
		if _, ok := t.file[kv.key.Value]; ok {
			keys[kv.key.Value] = i
		}
	}
	refs := func(name string) []string {
		if v, ok := t.fromFile(name); ok {
			return references(v, keys)
		}
		return nil
	}
	found := varCycleSearch{refs: refs, state: map[string]int{}}
	for _, name := range t.fileOrder {
		found.visit(name)
	}
	inCycle := map[string]bool{}
	for _, c := range found.cycles {
		// Start the cycle at the variable written first.
		first := slices.MinFunc(c, func(a, b string) int { return keys[a] - keys[b] })
		at := slices.Index(c, first)
		c = append(slices.Clone(c[at:]), c[:at]...)
		for _, name := range c {
			inCycle[name] = true
		}
		d.errorf(vars[keys[first]].key, "variable cycle: %s → %s (values under vars: are taken as written, not expanded: write the value itself)",
			strings.Join(c, " → "), first)
	}
	return inCycle
}

// references lists the variables of known that value refers to with
// ${name} or ${name:-default}, in order, each once.
func references(value string, known map[string]int) []string {
	var out []string
	_, _ = substitute(value, func(name string) (string, error) {
		if _, ok := known[name]; ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
		return "", nil
	})
	return out
}

// varCycleSearch is a depth-first search of the references between
// variables, which finds a cycle at every reference back to a variable
// still being searched.
type varCycleSearch struct {
	refs   func(name string) []string
	state  map[string]int // 0 unseen, 1 on the path being searched, 2 done
	path   []string
	cycles [][]string
}

func (s *varCycleSearch) visit(name string) {
	if s.state[name] != 0 {
		return
	}
	s.state[name] = 1
	s.path = append(s.path, name)
	for _, ref := range s.refs(name) {
		switch s.state[ref] {
		case 0:
			s.visit(ref)
		case 1:
			s.cycles = append(s.cycles, slices.Clone(s.path[slices.Index(s.path, ref):]))
		}
	}
	s.path = s.path[:len(s.path)-1]
	s.state[name] = 2
}

// fromFile returns the file's value of variable name when it is the one
// in force: neither --secret-var, --var nor the environment sets name.
func (t *varTable) fromFile(name string) (string, bool) {
	if _, ok := t.secretCLI[name]; ok {
		return "", false
	}
	if _, ok := t.cli[name]; ok {
		return "", false
	}
	if t.fromEnv(name) != nil {
		return "", false
	}
	v, ok := t.file[name]
	return v, ok
}
