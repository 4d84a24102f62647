package scenarios

import (
	"go.yaml.in/yaml/v3"
)

// rawFlowStep is one step of `setup:` or `flow:`.
type rawFlowStep struct {
	node                                 *yaml.Node
	ok                                   bool
	name, method, path, url              *yaml.Node
	body, bodyFile, thinkTime, expectKey *yaml.Node
	headers                              []pair
	expect                               rawExpect
	extract                              []*rawExtract
}

// rawExtract is one entry of a step's `extract:`, `var: {json: PATH}`.
type rawExtract struct {
	key, node           *yaml.Node
	ok                  bool
	json, header, regex pair
}

var flowStepFields = []field[rawFlowStep]{
	scalarField("name", aName, func(s *rawFlowStep) **yaml.Node { return &s.name }),
	scalarField("method", aString, func(s *rawFlowStep) **yaml.Node { return &s.method }),
	scalarField("path", aString, func(s *rawFlowStep) **yaml.Node { return &s.path }),
	scalarField("url", aString, func(s *rawFlowStep) **yaml.Node { return &s.url }),
	{name: "headers", set: func(d *decoder, s *rawFlowStep, _, v *yaml.Node) { s.headers = d.scalarMap(v, "headers") }},
	scalarField("body", aString, func(s *rawFlowStep) **yaml.Node { return &s.body }),
	scalarField("body_file", aString, func(s *rawFlowStep) **yaml.Node { return &s.bodyFile }),
	{name: "expect", set: func(d *decoder, s *rawFlowStep, k, v *yaml.Node) {
		s.expectKey = k
		fields(d, v, "expect", "expect", expectFields, &s.expect)
	}},
	{name: "extract", set: func(d *decoder, s *rawFlowStep, _, v *yaml.Node) { s.extract = d.extracts(v) }},
	scalarField("think_time", aDuration, func(s *rawFlowStep) **yaml.Node { return &s.thinkTime }),
}

var extractFields = []field[rawExtract]{
	{name: "json", set: func(d *decoder, e *rawExtract, k, v *yaml.Node) { e.json = pair{k, d.scalar(v, "json", aString)} }},
	{name: "header", set: func(d *decoder, e *rawExtract, k, v *yaml.Node) { e.header = pair{k, d.scalar(v, "header", aString)} }},
	{name: "regex", set: func(d *decoder, e *rawExtract, k, v *yaml.Node) { e.regex = pair{k, d.scalar(v, "regex", aString)} }},
}

// flowSteps reads `setup:` or `flow:`, a list of step mappings.
func (d *decoder) flowSteps(n *yaml.Node, label string) []*rawFlowStep {
	var out []*rawFlowStep
	for _, e := range d.seq(n, label) {
		if d.exhausted() {
			break
		}
		s := &rawFlowStep{node: d.deref(e)}
		s.ok = fields(d, e, "step", "step", flowStepFields, s)
		out = append(out, s)
	}
	return out
}

// extracts reads a step's `extract:`, a mapping from variable names to
// where each value comes from.
func (d *decoder) extracts(n *yaml.Node) []*rawExtract {
	return namedEntries(d, n, "extract", "a mapping from variable names to {json: PATH}, {header: NAME} or {regex: RE}", func(kv pair) *rawExtract {
		e := &rawExtract{key: kv.key, node: d.deref(kv.val)}
		e.ok = fields(d, kv.val, "extract."+kv.key.Value, "extraction", extractFields, e)
		return e
	})
}
