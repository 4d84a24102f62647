package scenarios

import (
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxCases bounds targets × matrix combinations. Each case is a full run
// of every phase, so more than this is a typo, not a plan.
const MaxCases = 10_000

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
				secret, ok := (&resolver{d: d, vars: newVarTable(LoadOptions{})}).bool(kv.secret, "vars."+name+".secret")
				vt.secret[name] = ok && secret
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
	case n > MaxCases:
		d.errorf(at, "matrix: targets × combinations make more than %d cases", MaxCases)
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

// baselines resolves every target's baseline_target: another target of
// the scenario, which has none itself. In a chain one target would be
// both a reference and a candidate, and a loop would have no reference.
func (d *decoder) baselines(r *resolver, raw *rawScenario, names []string) []string {
	out := make([]string, len(raw.targets))
	for i, t := range raw.targets {
		n := t.baselineTarget
		if n == nil {
			continue
		}
		name, ok := r.name(n, "baseline_target")
		if !ok {
			continue
		}
		j := slices.Index(names, name)
		switch {
		case j < 0:
			d.errorf(n, "baseline_target: there is no target named %q%s", name, suggest(name, names))
		case j == i:
			d.errorf(n, "baseline_target: a target cannot be its own baseline")
		case raw.targets[j].baselineTarget != nil:
			d.errorf(n, "baseline_target: target %q has a baseline_target itself (line %d); name a target that has none",
				name, raw.targets[j].baselineTarget.Line)
		default:
			out[i] = name
		}
	}
	return out
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

// threshold resolves one threshold entry, checking that the phase and
// target it narrows to exist. The rule itself is compiled by the
// assertions package; here it only has to be non-empty text.
func (r *resolver) threshold(t *rawThreshold, targets []string, phases []Phase) Threshold {
	out := Threshold{Severity: SeverityFail, Pos: r.d.pos(t.node)}
	if t.rule == nil {
		r.d.errorf(t.node, "threshold: missing required field %q", "rule")
		return out
	}
	out.RulePos = rulePos(r.d, t.rule)
	rule, ok := r.text(t.rule)
	if ok && strings.TrimSpace(rule) == "" {
		r.d.errorf(t.rule, "rule: must not be empty")
	}
	out.Rule = rule
	out.Name = out.Rule
	if t.name != nil {
		if s, _ := r.text(t.name); s != "" {
			out.Name = s
		}
	}
	if t.severity != nil {
		if s, ok := r.text(t.severity); ok {
			switch sev := Severity(s); sev {
			case SeverityFail, SeverityWarn:
				out.Severity = sev
			default:
				r.d.errorf(t.severity, "severity: expected %s or %s, got %q", SeverityFail, SeverityWarn, s)
			}
		}
	}
	if t.phase != nil {
		if s, ok := r.text(t.phase); ok {
			out.Phase = s
			i := slices.IndexFunc(phases, func(p Phase) bool { return p.Name == s })
			switch {
			case i < 0 && len(phases) > 0:
				r.d.errorf(t.phase, "phase: there is no phase named %q", s)
			case i >= 0 && phases[i].Warmup:
				r.d.errorf(t.phase, "phase: %q is a warmup phase, which is never judged", s)
			}
		}
	}
	if t.target != nil {
		if s, ok := r.text(t.target); ok {
			out.Target = s
			if !slices.Contains(targets, s) {
				r.d.errorf(t.target, "target: there is no target named %q", s)
			}
		}
	}
	r.abort(t, &out)
	return out
}

// abort resolves `abort: true` and `window:`. A warn rule cannot abort:
// stopping the run fails it, which a warning must never do.
func (r *resolver) abort(t *rawThreshold, out *Threshold) {
	if t.abort.val != nil {
		out.Abort, _ = r.bool(t.abort.val, "abort")
		if out.Abort && out.Severity == SeverityWarn {
			r.d.errorf(t.abort.key, "abort: a warn rule only reports; stopping the run would fail it (use severity: fail)")
		}
	}
	if t.window.val == nil {
		return
	}
	v, ok := r.duration(t.window.val, "window")
	switch {
	case !ok:
	case v == 0:
		r.d.errorf(t.window.val, "window: must be greater than 0")
	case !out.Abort && (t.abort.val == nil || isFalse(t.abort.val)):
		r.d.errorf(t.window.key, "window: needs abort: true; it is the span an abort rule is evaluated over while the phase runs")
	default:
		out.Window = v
	}
}

// isFalse reports whether scalar n is written as false, so that a mistyped
// abort: does not also earn a complaint about window.
func isFalse(n *yaml.Node) bool {
	switch n.Value {
	case "false", "False", "FALSE":
		return true
	}
	return false
}

// rulePos is where a rule's first character is, so that a column inside
// the rule maps onto the file by addition. Quoted rules start one column
// after the quote; a block scalar's text starts on its first line that is
// not blank, after the block's indentation. A block whose text starts
// with a line break keeps the node's position.
func rulePos(d *decoder, n *yaml.Node) Pos {
	p := d.pos(n)
	switch {
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		p.Col++
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && n.Value != "" && n.Value[0] != '\n':
		for line := p.Line + 1; line <= len(d.src.lines); line++ {
			text := d.src.lineText(line)
			if rest := strings.TrimLeft(text, " "); rest != "" {
				return Pos{File: p.File, Line: line, Col: utf8.RuneCountInString(text[:len(text)-len(rest)]) + 1}
			}
		}
	}
	return p
}
