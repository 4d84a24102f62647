package scenarios

import (
	"go.yaml.in/yaml/v3"
)

// rawServer is a `server:` block, of the scenario or of one target. Its
// key is kept: the block is reported there when it conflicts with another.
type rawServer struct {
	key, node   *yaml.Node
	ok          bool
	commandKey  *yaml.Node
	command     *yaml.Node   // the one-string form, run by sh -c
	argvNode    *yaml.Node   // the list form, as written
	argv        []*yaml.Node // its entries; nil for an entry that is not a scalar
	dir         *yaml.Node
	env         []pair
	ready       rawReady
	stopSignal  *yaml.Node
	stopTimeout *yaml.Node
}

type rawReady struct {
	http, tcp, log *yaml.Node
	timeout        pair
}

// rawMonitor is a `monitor:` block. Its fields are kept with their keys:
// pid, process and prometheus exclude each other.
type rawMonitor struct {
	key, node    *yaml.Node
	ok           bool
	pid, process pair
	prometheus   *rawPrometheus
}

var serverFields = []field[rawServer]{
	{name: "command", set: func(d *decoder, s *rawServer, k, v *yaml.Node) {
		s.commandKey = k
		switch n := d.deref(v); n.Kind {
		case yaml.ScalarNode:
			s.command = n
		case yaml.SequenceNode:
			s.argvNode = n
			for _, a := range n.Content {
				if d.exhausted() {
					break
				}
				s.argv = append(s.argv, d.scalar(a, "command", aString))
			}
		default:
			d.errorf(n, "command: expected a shell command or a list of arguments, got %s", describe(n))
		}
	}},
	scalarField("dir", aString, func(s *rawServer) **yaml.Node { return &s.dir }),
	{name: "env", set: func(d *decoder, s *rawServer, _, v *yaml.Node) { s.env = d.scalarMap(v, "env") }},
	{name: "ready", set: func(d *decoder, s *rawServer, _, v *yaml.Node) {
		fields(d, v, "ready", "ready", readyFields, &s.ready)
	}},
	scalarField("stop_signal", aString, func(s *rawServer) **yaml.Node { return &s.stopSignal }),
	scalarField("stop_timeout", aDuration, func(s *rawServer) **yaml.Node { return &s.stopTimeout }),
}

// readyFields label their values ready.http and so on: a bare `http:`
// or `timeout:` in a message would be taken for the target's.
var readyFields = []field[rawReady]{
	{name: "http", set: func(d *decoder, r *rawReady, _, v *yaml.Node) { r.http = d.scalar(v, "ready.http", aString) }},
	{name: "tcp", set: func(d *decoder, r *rawReady, _, v *yaml.Node) { r.tcp = d.scalar(v, "ready.tcp", aString) }},
	{name: "log", set: func(d *decoder, r *rawReady, _, v *yaml.Node) { r.log = d.scalar(v, "ready.log", aString) }},
	{name: "timeout", set: func(d *decoder, r *rawReady, k, v *yaml.Node) {
		r.timeout = pair{k, d.scalar(v, "ready.timeout", aDuration)}
	}},
}

var monitorFields = []field[rawMonitor]{
	{name: "pid", set: func(d *decoder, m *rawMonitor, k, v *yaml.Node) { m.pid = pair{k, d.scalar(v, "pid", anInteger)} }},
	{name: "process", set: func(d *decoder, m *rawMonitor, k, v *yaml.Node) {
		m.process = pair{k, d.scalar(v, "process", aString)}
	}},
	{name: "prometheus", set: func(d *decoder, m *rawMonitor, k, v *yaml.Node) { m.prometheus = d.prometheus(k, v) }},
}

func (d *decoder) server(k, v *yaml.Node) *rawServer {
	s := &rawServer{key: k, node: d.deref(v)}
	if s.node.Kind == yaml.ScalarNode {
		// The likeliest reading of `server: ./bin/hello` is a command.
		d.errorf(s.node, "server: expected a mapping, got %s (write the command as server: { command: ... })", describe(s.node))
		return s
	}
	s.ok = fields(d, v, "server", "server", serverFields, s)
	return s
}

func (d *decoder) monitor(k, v *yaml.Node) *rawMonitor {
	m := &rawMonitor{key: k, node: d.deref(v)}
	m.ok = fields(d, v, "monitor", "monitor", monitorFields, m)
	return m
}

// monitorList reads `monitors:`, a mapping from names to monitor blocks:
// the processes watched beside the server, such as its database.
func (d *decoder) monitorList(n *yaml.Node) []*rawMonitor {
	return namedEntries(d, n, "monitors", "a mapping from names to monitors (monitors: { db: { process: postgres } })", func(kv pair) *rawMonitor {
		m := &rawMonitor{key: kv.key, node: d.deref(kv.val)}
		m.ok = fields(d, kv.val, "monitors."+kv.key.Value, "monitor", monitorFields, m)
		return m
	})
}

// oneProcess reports a server and a monitor given side by side, at
// whichever was written later. The server loadgate starts is the process
// it watches; a monitor is for one started elsewhere.
func (d *decoder) oneProcess(s *rawServer, m *rawMonitor) {
	if s != nil && m != nil {
		d.errorf(later(s.key, m.key), "server and monitor are exclusive: loadgate watches the server it starts; monitor is for a process started elsewhere")
	}
}

// ownProcesses reports targets with a server or monitor of their own in a
// scenario that has one for all targets. Either the scenario's process
// lives for the whole run or each target's lives for its cases; mixing the
// two would leave two processes answering and one of them unwatched.
func (d *decoder) ownProcesses(raw *rawScenario) {
	top, topKind := raw.processKey()
	if top == nil {
		return
	}
	for _, t := range raw.targets {
		k, kind := t.processKey()
		if k == nil {
			continue
		}
		has := "one"
		if kind != topKind {
			has = "a " + topKind
		}
		d.errorf(k, "%s: a target cannot have its own %s when the scenario has %s (line %d)", kind, kind, has, top.Line)
	}
}

// processKey returns the key of the scenario's server or monitor, and
// which of the two it is; nil when it has neither.
func (s *rawScenario) processKey() (*yaml.Node, string) {
	return processKey(s.server, s.monitor)
}

func (t *rawTarget) processKey() (*yaml.Node, string) {
	return processKey(t.server, t.monitor)
}

func processKey(s *rawServer, m *rawMonitor) (*yaml.Node, string) {
	switch {
	case s != nil:
		return s.key, "server"
	case m != nil:
		return m.key, "monitor"
	}
	return nil, ""
}
