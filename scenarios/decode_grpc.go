package scenarios

import (
	"go.yaml.in/yaml/v3"
)

// The first pass over `grpc:` and `websocket:` blocks. Their values may
// hold variables and are resolved per matrix combination in grpc.go and
// websocket.go; a gRPC message keeps its whole node, which is converted to
// JSON only then.

type rawGRPC struct {
	node                                 *yaml.Node
	address, method, reflection, timeout *yaml.Node
	connections, stream                  *yaml.Node
	tlsKey                               *yaml.Node // nil = plaintext
	tls                                  rawTLS
	message                              *yaml.Node // a mapping, or a string of JSON
	metadata                             []pair
	protoKey, importPathsKey             *yaml.Node
	proto, importPaths                   []*yaml.Node
	expectCodes                          []*yaml.Node
	expectKey                            *yaml.Node
}

var grpcFields = []field[rawGRPC]{
	scalarField("address", aString, func(g *rawGRPC) **yaml.Node { return &g.address }),
	{name: "tls", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		if fields(d, v, "tls", "tls", tlsFields, &g.tls) {
			g.tlsKey = k
		}
	}},
	scalarField("method", aString, func(g *rawGRPC) **yaml.Node { return &g.method }),
	{name: "message", set: func(d *decoder, g *rawGRPC, _, v *yaml.Node) {
		n := d.deref(v)
		if n.Kind != yaml.MappingNode && n.Kind != yaml.ScalarNode {
			d.errorf(n, "message: expected a mapping of the message's fields or a string of JSON, got %s", describe(n))
			return
		}
		g.message = n
	}},
	{name: "metadata", set: func(d *decoder, g *rawGRPC, _, v *yaml.Node) { g.metadata = d.scalarMap(v, "metadata") }},
	{name: "proto", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		g.protoKey = k
		g.proto = d.scalarList(v, "proto", "a .proto file")
	}},
	{name: "import_paths", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		g.importPathsKey = k
		g.importPaths = d.scalarList(v, "import_paths", "a directory")
	}},
	scalarField("reflection", aBool, func(g *rawGRPC) **yaml.Node { return &g.reflection }),
	scalarField("stream", aString, func(g *rawGRPC) **yaml.Node { return &g.stream }),
	scalarField("timeout", aDuration, func(g *rawGRPC) **yaml.Node { return &g.timeout }),
	scalarField("connections", anInteger, func(g *rawGRPC) **yaml.Node { return &g.connections }),
	{name: "expect", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		g.expectKey = k
		fields(d, v, "expect", "expect", grpcExpectFields, g)
	}},
}

// grpcExpectFields reads `expect:` of a gRPC target into the target itself:
// it has one field.
var grpcExpectFields = []field[rawGRPC]{
	{name: "code", set: func(d *decoder, g *rawGRPC, _, v *yaml.Node) {
		// One code is shorthand for a one-element list, as status is.
		if n := d.deref(v); n.Kind == yaml.ScalarNode {
			g.expectCodes = []*yaml.Node{n}
			return
		}
		g.expectCodes = d.scalarList(v, "code", "a status code such as OK or 14")
	}},
}

// scalarList reads a list of scalars; a single scalar is a list of one.
func (d *decoder) scalarList(v *yaml.Node, label, noun string) []*yaml.Node {
	if n := d.deref(v); n.Kind == yaml.ScalarNode {
		return []*yaml.Node{n}
	}
	var out []*yaml.Node
	for _, n := range d.seq(v, label) {
		if s := d.scalar(n, label, noun); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func (d *decoder) grpc(v *yaml.Node) *rawGRPC {
	g := &rawGRPC{node: d.deref(v)}
	if !fields(d, v, "grpc", "grpc", grpcFields, g) {
		return nil
	}
	return g
}

type rawWS struct {
	node                                 *yaml.Node
	url, connection, timeout, maxMessage *yaml.Node
	headers                              []pair
	tls                                  rawTLS
	tlsKey                               *yaml.Node
	onConnect                            []*rawWSStep
	iterationKey                         *yaml.Node
	iteration                            []*rawWSStep
}

type rawWSStep struct {
	node                      *yaml.Node
	ok                        bool
	actions                   []*yaml.Node // the action keys written, in file order
	send, sendBinary, sendHex *yaml.Node
	expect                    *rawWSExpect
}

type rawWSExpect struct {
	node                    *yaml.Node
	contains, equals, regex *yaml.Node
}

var wsFields = []field[rawWS]{
	scalarField("url", aString, func(w *rawWS) **yaml.Node { return &w.url }),
	{name: "headers", set: func(d *decoder, w *rawWS, _, v *yaml.Node) { w.headers = d.scalarMap(v, "headers") }},
	{name: "tls", set: func(d *decoder, w *rawWS, k, v *yaml.Node) {
		w.tlsKey = k
		fields(d, v, "tls", "tls", tlsFields, &w.tls)
	}},
	scalarField("connection", aString, func(w *rawWS) **yaml.Node { return &w.connection }),
	scalarField("timeout", aDuration, func(w *rawWS) **yaml.Node { return &w.timeout }),
	scalarField("max_message", aSize, func(w *rawWS) **yaml.Node { return &w.maxMessage }),
	{name: "on_connect", set: func(d *decoder, w *rawWS, _, v *yaml.Node) { w.onConnect = d.wsSteps(v, "on_connect") }},
	{name: "iteration", set: func(d *decoder, w *rawWS, k, v *yaml.Node) {
		w.iterationKey = k
		w.iteration = d.wsSteps(v, "iteration")
	}},
}

var wsStepFields = []field[rawWSStep]{
	wsAction("send", func(s *rawWSStep) **yaml.Node { return &s.send }),
	wsAction("send_binary", func(s *rawWSStep) **yaml.Node { return &s.sendBinary }),
	wsAction("send_hex", func(s *rawWSStep) **yaml.Node { return &s.sendHex }),
	{name: "expect", set: func(d *decoder, s *rawWSStep, k, v *yaml.Node) {
		s.actions = append(s.actions, k)
		e := &rawWSExpect{node: d.deref(v)}
		if fields(d, v, "expect", "expect", wsExpectFields, e) {
			s.expect = e
		}
	}},
}

func wsAction(name string, ptr func(*rawWSStep) **yaml.Node) field[rawWSStep] {
	return field[rawWSStep]{name: name, set: func(d *decoder, s *rawWSStep, k, v *yaml.Node) {
		s.actions = append(s.actions, k)
		*ptr(s) = d.scalar(v, name, aString)
	}}
}

var wsExpectFields = []field[rawWSExpect]{
	scalarField("contains", aString, func(e *rawWSExpect) **yaml.Node { return &e.contains }),
	scalarField("equals", aString, func(e *rawWSExpect) **yaml.Node { return &e.equals }),
	scalarField("regex", aString, func(e *rawWSExpect) **yaml.Node { return &e.regex }),
}

func (d *decoder) websocket(v *yaml.Node) *rawWS {
	w := &rawWS{node: d.deref(v)}
	if !fields(d, v, "websocket", "websocket", wsFields, w) {
		return nil
	}
	return w
}

// wsSteps reads a list of WebSocket steps; each step is a mapping with one
// action, as the steps of a TCP target are.
func (d *decoder) wsSteps(v *yaml.Node, label string) []*rawWSStep {
	var out []*rawWSStep
	for _, n := range d.seq(v, label) {
		if d.exhausted() {
			break
		}
		s := &rawWSStep{node: d.deref(n)}
		s.ok = fields(d, n, "step", "step", wsStepFields, s)
		switch {
		case !s.ok:
		case len(s.actions) == 0:
			if !hasUnknownKey(s.node, wsStepFields) {
				d.errorf(s.node, "%s: a step needs one of send, send_binary, send_hex or expect", label)
			}
			s.ok = false
		case len(s.actions) > 1:
			d.errorf(s.actions[1], "%s: %s and %s are two steps; write each as its own list entry", label, s.actions[0].Value, s.actions[1].Value)
			s.ok = false
		}
		out = append(out, s)
	}
	return out
}
