package scenarios

import "go.yaml.in/yaml/v3"

type rawThreshold struct {
	node                                *yaml.Node
	ok                                  bool
	rule, name, severity, phase, target *yaml.Node
	abort, window                       pair
}

var thresholdFields = []field[rawThreshold]{
	scalarField("name", aString, func(t *rawThreshold) **yaml.Node { return &t.name }),
	scalarField("rule", aString, func(t *rawThreshold) **yaml.Node { return &t.rule }),
	scalarField("severity", aString, func(t *rawThreshold) **yaml.Node { return &t.severity }),
	scalarField("phase", aName, func(t *rawThreshold) **yaml.Node { return &t.phase }),
	scalarField("target", aName, func(t *rawThreshold) **yaml.Node { return &t.target }),
	{name: "abort", set: func(d *decoder, t *rawThreshold, k, v *yaml.Node) { t.abort = pair{k, d.scalar(v, "abort", aBool)} }},
	{name: "window", set: func(d *decoder, t *rawThreshold, k, v *yaml.Node) {
		t.window = pair{k, d.scalar(v, "window", aDuration)}
	}},
}

// threshold accepts the two forms of an entry: a bare rule, or a mapping.
func (d *decoder) threshold(n *yaml.Node) *rawThreshold {
	t := &rawThreshold{node: d.deref(n)}
	switch t.node.Kind {
	case yaml.ScalarNode:
		t.rule, t.ok = t.node, true
	case yaml.MappingNode:
		t.ok = fields(d, n, "threshold", "threshold", thresholdFields, t)
	default:
		d.errorf(t.node, "threshold: expected a rule or a mapping with a rule, got %s", describe(t.node))
	}
	return t
}
