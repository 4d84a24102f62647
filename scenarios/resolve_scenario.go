package scenarios

import (
	"slices"

	"go.yaml.in/yaml/v3"
)

// maxWork bounds cases × document nodes: the second pass resolves every
// target and phase once per matrix combination.
const maxWork = 1 << 22

// build runs the second pass: variables, matrix, per-case resolution.
func (d *decoder) build(raw *rawScenario, opts LoadOptions) *Scenario {
	s := &Scenario{File: d.file}
	s.Matrix = d.axes(raw.matrix)
	vt := d.varTable(raw, opts)

	top := &resolver{d: d, vars: vt, where: "the scenario's version, name or description"}
	d.header(top, raw, s)

	top.where = "a target or phase name, which must be the same in every case"
	targetNames := names(d, top, raw.targets, "target")
	phaseNames := names(d, top, raw.phases, "phase")
	switch {
	case raw.targetsKey == nil:
		d.errorf(raw.root, "missing required field %q", "targets")
	case len(raw.targets) == 0:
		d.errorf(raw.targetsKey, "targets: needs at least one target")
	}
	switch {
	case raw.phasesKey == nil:
		d.errorf(raw.root, "missing required field %q", "phases")
	case len(raw.phases) == 0:
		d.errorf(raw.phasesKey, "phases: needs at least one phase")
	}

	shared := d.processes(vt, raw, s)
	top.where = "baseline_target, which must be the same in every case"
	for i, b := range d.baselines(top, raw, targetNames) {
		shared[i].BaselineTarget = b
	}

	top.where = "data:, which is read once for every case"
	d.dataSources(top, raw.data)
	s.Data = d.data.sources
	firstPhases := d.cases(raw, vt, s, targetNames, phaseNames, shared)
	d.checkUnique(s)

	top.where = "a threshold (a rule can use matrix.NAME instead)"
	for _, t := range raw.thresholds {
		if t.ok {
			s.Thresholds = append(s.Thresholds, top.threshold(t, targetNames, firstPhases))
		}
	}
	s.Vars = vt.effective()
	d.secrets.add(vt.secretValues()...)
	s.Secrets = d.secrets.redactor()
	return s
}

// varTable sets up variable lookup: the file's `vars:`, the overrides, and
// the matrix keys, which may be defined nowhere else.
func (d *decoder) varTable(raw *rawScenario, opts LoadOptions) *varTable {
	vt := newVarTable(opts)
	for _, ax := range raw.matrix {
		vt.matrixKeys[ax.key.Value] = true
		if _, ok := opts.Vars[ax.key.Value]; ok {
			d.errorf(ax.key, "matrix.%s: also set with --var; a matrix variable takes its values from the matrix", ax.key.Value)
		}
	}
	for _, kv := range raw.vars {
		name := kv.key.Value
		switch {
		case !validVarName(name):
			d.errorf(kv.key, "vars: %q is not a valid variable name (letters, digits and _, not starting with a digit)", name)
		case vt.matrixKeys[name]:
			d.errorf(kv.key, "vars: %q is also a matrix variable", name)
		default:
			vt.file[name] = kv.val.Value
			if isNull(kv.val) {
				vt.file[name] = ""
			}
			vt.fileOrder = append(vt.fileOrder, name)
			if kv.secret != nil {
				// Resolved without variables: whether a value is secret
				// must not depend on another value.
				// secret: false marks nothing: every name in vt.secret is
				// redacted, and --secret-var may have put this one there.
				if secret, ok := (&resolver{d: d, vars: newVarTable(LoadOptions{})}).bool(kv.secret, "vars."+name+".secret"); ok && secret {
					vt.secret[name] = true
				}
			}
		}
	}
	vt.cycle = d.varCycles(raw.vars, vt)
	return vt
}

// cases resolves targets and phases once per matrix combination and lays
// the cases out target-major. It returns the phases of the first
// combination, against which thresholds are checked. shared holds what
// every case of a target has in common whatever the matrix says: its
// monitor and baseline target. Servers may use matrix variables: each
// case gets the scenario's and its target's as its values resolve them.
func (d *decoder) cases(raw *rawScenario, vt *varTable, s *Scenario, targetNames, phaseNames []string, shared []Target) []Phase {
	at := raw.root
	if raw.matrixKey != nil {
		at = raw.matrixKey
	}
	switch n := caseCount(s.Matrix, len(raw.targets)); {
	case n > maxCases:
		d.errorf(at, "matrix: targets × combinations make more than %d cases", maxCases)
		return nil
	case n*d.nodes > maxWork:
		d.errorf(at, "matrix: %d cases of a document this large is too much work", n)
		return nil
	}
	combos := combinations(s.Matrix)
	targets := make([][]Target, len(combos))
	phases := make([][]Phase, len(combos))
	servers := make([]*Server, len(combos))
	for c, combo := range combos {
		r := &resolver{d: d, vars: vt, matrix: map[string]string{}}
		for _, mv := range combo {
			r.matrix[mv.Key] = mv.Text
		}
		servers[c] = r.server(raw.server, "server")
		for i, t := range raw.targets {
			tg := r.target(t, targetNames[i])
			tg.Server = r.server(t.server, targetNames[i])
			tg.Monitor, tg.BaselineTarget = shared[i].Monitor, shared[i].BaselineTarget
			targets[c] = append(targets[c], tg)
		}
		phases[c] = r.phases(raw, phaseNames)
	}
	if len(combos) == 0 {
		return nil
	}
	s.Targets, s.Server = targets[0], servers[0]
	for t := range raw.targets {
		for c, combo := range combos {
			s.Cases = append(s.Cases, Case{
				ID:     caseID(targetNames[t], combo),
				Target: targets[c][t],
				Matrix: combo,
				Phases: slices.Clone(phases[c]),
				Server: servers[c],
			})
		}
	}
	return phases[0]
}

// header resolves version, name and description.
func (d *decoder) header(r *resolver, raw *rawScenario, s *Scenario) {
	if raw.version == nil {
		d.errorf(raw.root, "missing required field %q", "version")
	} else if v, ok := r.int(raw.version, "version"); ok && v != 1 {
		d.errorf(raw.version, "version: this loadgate reads scenario version 1, not %d", v)
	}
	if raw.name == nil {
		d.errorf(raw.root, "missing required field %q", "name")
	} else {
		s.Name, _ = r.name(raw.name, "name")
		s.Pos = d.pos(raw.name)
	}
	if raw.description != nil {
		s.Description, _ = r.text(raw.description)
	}
}

// named is a raw target or phase, whose names are resolved scenario-wide.
type named interface {
	nameNode() (entry, name *yaml.Node, ok bool)
}

func (t *rawTarget) nameNode() (*yaml.Node, *yaml.Node, bool) { return t.node, t.name, t.ok }
func (p *rawPhase) nameNode() (*yaml.Node, *yaml.Node, bool)  { return p.node, p.name, p.ok }

// names resolves and checks the names of targets or phases. They identify
// cases across runs, so they must not vary with the matrix.
func names[T named](d *decoder, r *resolver, list []T, what string) []string {
	out := make([]string, len(list))
	first := map[string]*yaml.Node{}
	for i, item := range list {
		entry, n, ok := item.nameNode()
		if !ok {
			continue
		}
		if n == nil {
			d.errorf(entry, "%s: missing required field %q", what, "name")
			continue
		}
		name, ok := r.name(n, "name")
		if !ok {
			continue
		}
		if f, dup := first[name]; dup {
			d.errorf(n, "%s %q is defined twice (first at line %d)", what, name, f.Line)
		}
		first[name] = n
		out[i] = name
	}
	return out
}
