package scenarios

import "slices"

// target resolves one target for one matrix combination.
func (r *resolver) target(t *rawTarget, name string) Target {
	out := Target{Name: name, Pos: r.d.pos(t.node)}
	switch {
	case t.http != nil:
		out.HTTP = r.http(t.http)
	case t.tcp != nil:
		out.TCP = r.tcp(t.tcp)
	case t.grpc != nil:
		out.GRPC = r.grpc(t.grpc)
	case t.websocket != nil:
		out.WebSocket = r.websocket(t.websocket)
	case t.ok && len(t.protos) == 0:
		r.d.errorf(t.node, "%s: needs one of http, tcp, grpc or websocket", described("target", name))
	}
	return out
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
