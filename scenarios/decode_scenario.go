package scenarios

import (
	"go.yaml.in/yaml/v3"
)

// rawScenario is the root mapping of a file; decode_*.go hold the raw
// types of the blocks it contains.
type rawScenario struct {
	root                       *yaml.Node
	ok                         bool
	version, name, description *yaml.Node
	vars                       []rawVar
	matrixKey                  *yaml.Node
	matrix                     []rawAxis
	targetsKey, phasesKey      *yaml.Node
	targets                    []*rawTarget
	phases                     []*rawPhase
	thresholds                 []*rawThreshold
	server                     *rawServer
	monitor                    *rawMonitor
	monitorsKey                *yaml.Node
	monitors                   []*rawMonitor // `monitors:`, each keyed by its name
	data                       []*rawData
}

var scenarioFields = []field[rawScenario]{
	scalarField("version", anInteger, func(s *rawScenario) **yaml.Node { return &s.version }),
	scalarField("name", aName, func(s *rawScenario) **yaml.Node { return &s.name }),
	scalarField("description", aString, func(s *rawScenario) **yaml.Node { return &s.description }),
	{name: "vars", set: func(d *decoder, s *rawScenario, _, v *yaml.Node) { s.vars = d.vars(v) }},
	{name: "targets", set: func(d *decoder, s *rawScenario, k, v *yaml.Node) {
		s.targetsKey = k
		for _, n := range d.seq(v, "targets") {
			s.targets = append(s.targets, d.target(n))
		}
	}},
	{name: "matrix", set: func(d *decoder, s *rawScenario, k, v *yaml.Node) {
		s.matrixKey = k
		s.matrix = d.matrix(v)
	}},
	{name: "phases", set: func(d *decoder, s *rawScenario, k, v *yaml.Node) {
		s.phasesKey = k
		for _, n := range d.seq(v, "phases") {
			p := &rawPhase{node: d.deref(n)}
			p.ok = fields(d, n, "phase", "phase", phaseFields, p)
			s.phases = append(s.phases, p)
		}
	}},
	{name: "thresholds", set: func(d *decoder, s *rawScenario, _, v *yaml.Node) {
		for _, n := range d.seq(v, "thresholds") {
			s.thresholds = append(s.thresholds, d.threshold(n))
		}
	}},
	{name: "server", set: func(d *decoder, s *rawScenario, k, v *yaml.Node) { s.server = d.server(k, v) }},
	{name: "monitor", set: func(d *decoder, s *rawScenario, k, v *yaml.Node) { s.monitor = d.monitor(k, v) }},
	{name: "monitors", set: func(d *decoder, s *rawScenario, k, v *yaml.Node) {
		s.monitorsKey = k
		s.monitors = d.monitorList(v)
	}},
	{name: "data", set: func(d *decoder, s *rawScenario, _, v *yaml.Node) { s.data = d.dataList(v) }},
}

// scenario runs the first pass over the document's root node.
func (d *decoder) scenario(root *yaml.Node) *rawScenario {
	s := &rawScenario{root: d.deref(root)}
	s.ok = fields(d, root, "scenario", "scenario", scenarioFields, s)
	d.oneProcess(s.server, s.monitor)
	if s.monitor != nil && s.monitorsKey != nil {
		d.errorf(later(s.monitor.key, s.monitorsKey), "monitor and monitors are exclusive: write the one monitor as an entry of monitors")
	}
	d.ownProcesses(s)
	return s
}
