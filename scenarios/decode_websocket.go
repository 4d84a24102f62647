package scenarios

import "go.yaml.in/yaml/v3"

// The first pass over a `websocket:` block. Its values may hold variables
// and are resolved per matrix combination in resolve_websocket.go.

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
