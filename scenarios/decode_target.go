package scenarios

import "go.yaml.in/yaml/v3"

type rawTarget struct {
	node           *yaml.Node
	ok             bool // a mapping, so missing fields are worth reporting
	name           *yaml.Node
	protos         []*yaml.Node // the protocol keys written (http, tcp, grpc, websocket), in file order
	http           *rawHTTP
	tcp            *rawTCP
	grpc           *rawGRPC
	websocket      *rawWS
	server         *rawServer
	monitor        *rawMonitor
	baselineTarget *yaml.Node
}

var targetFields = []field[rawTarget]{
	scalarField("name", aName, func(t *rawTarget) **yaml.Node { return &t.name }),
	{name: "http", set: func(d *decoder, t *rawTarget, k, v *yaml.Node) {
		t.protos = append(t.protos, k)
		h := &rawHTTP{node: d.deref(v)}
		if fields(d, v, "http", "http", httpFields, h) {
			t.http = h
		}
	}},
	{name: "tcp", set: func(d *decoder, t *rawTarget, k, v *yaml.Node) {
		t.protos = append(t.protos, k)
		t.tcp = d.tcp(v)
	}},
	{name: "grpc", set: func(d *decoder, t *rawTarget, k, v *yaml.Node) {
		t.protos = append(t.protos, k)
		t.grpc = d.grpc(v)
	}},
	{name: "websocket", set: func(d *decoder, t *rawTarget, k, v *yaml.Node) {
		t.protos = append(t.protos, k)
		t.websocket = d.websocket(v)
	}},
	{name: "server", set: func(d *decoder, t *rawTarget, k, v *yaml.Node) { t.server = d.server(k, v) }},
	{name: "monitor", set: func(d *decoder, t *rawTarget, k, v *yaml.Node) { t.monitor = d.monitor(k, v) }},
	scalarField("baseline_target", aName, func(t *rawTarget) **yaml.Node { return &t.baselineTarget }),
}

func (d *decoder) target(n *yaml.Node) *rawTarget {
	t := &rawTarget{node: d.deref(n)}
	t.ok = fields(d, n, "target", "target", targetFields, t)
	if len(t.protos) > 1 {
		d.errorf(t.protos[1], "target: set %s or %s, not both; a target speaks one protocol", t.protos[0].Value, t.protos[1].Value)
		t.http, t.tcp, t.grpc, t.websocket = nil, nil, nil, nil
	}
	d.oneProcess(t.server, t.monitor)
	return t
}
