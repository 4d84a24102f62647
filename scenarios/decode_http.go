package scenarios

import "go.yaml.in/yaml/v3"

type rawHTTP struct {
	node                               *yaml.Node
	url, method, body, bodyFile        *yaml.Node
	keepalive, timeout, maxBody, http2 *yaml.Node
	connections                        *yaml.Node
	headers                            []pair
	tls                                rawTLS
	requestsKey                        *yaml.Node
	requests                           []*rawRequest
	expect                             rawExpect
	cookies, proxy                     *yaml.Node
	localIPsKey                        *yaml.Node
	localIPs                           []*yaml.Node
	setupKey, flowKey                  *yaml.Node
	setup, flow                        []*rawFlowStep
}

type rawRequest struct {
	node                                  *yaml.Node
	ok                                    bool
	name, method, path, url, body, weight *yaml.Node
	headers                               []pair
}

type rawExpect struct {
	status                          []*yaml.Node
	bodyContains, bodyRegex, length *yaml.Node
}

var httpFields = []field[rawHTTP]{
	scalarField("url", aString, func(h *rawHTTP) **yaml.Node { return &h.url }),
	scalarField("method", aString, func(h *rawHTTP) **yaml.Node { return &h.method }),
	{name: "headers", set: func(d *decoder, h *rawHTTP, _, v *yaml.Node) { h.headers = d.scalarMap(v, "headers") }},
	scalarField("body", aString, func(h *rawHTTP) **yaml.Node { return &h.body }),
	scalarField("body_file", aString, func(h *rawHTTP) **yaml.Node { return &h.bodyFile }),
	scalarField("keepalive", aBool, func(h *rawHTTP) **yaml.Node { return &h.keepalive }),
	scalarField("timeout", aDuration, func(h *rawHTTP) **yaml.Node { return &h.timeout }),
	scalarField("max_body", aSize, func(h *rawHTTP) **yaml.Node { return &h.maxBody }),
	{name: "tls", set: func(d *decoder, h *rawHTTP, _, v *yaml.Node) { fields(d, v, "tls", "tls", tlsFields, &h.tls) }},
	scalarField("http2", aBool, func(h *rawHTTP) **yaml.Node { return &h.http2 }),
	scalarField("connections", anInteger, func(h *rawHTTP) **yaml.Node { return &h.connections }),
	{name: "requests", set: func(d *decoder, h *rawHTTP, k, v *yaml.Node) {
		h.requestsKey = k
		for _, n := range d.seq(v, "requests") {
			r := &rawRequest{node: d.deref(n)}
			r.ok = fields(d, n, "request", "request", requestFields, r)
			h.requests = append(h.requests, r)
		}
	}},
	{name: "expect", set: func(d *decoder, h *rawHTTP, _, v *yaml.Node) {
		fields(d, v, "expect", "expect", expectFields, &h.expect)
	}},
	scalarField("cookies", aBool, func(h *rawHTTP) **yaml.Node { return &h.cookies }),
	scalarField("proxy", aString, func(h *rawHTTP) **yaml.Node { return &h.proxy }),
	{name: "local_ips", set: func(d *decoder, h *rawHTTP, k, v *yaml.Node) {
		h.localIPsKey = k
		h.localIPs = d.scalarList(v, "local_ips", "an address, a FIRST-LAST range or a CIDR prefix")
	}},
	{name: "setup", set: func(d *decoder, h *rawHTTP, k, v *yaml.Node) {
		h.setupKey = k
		h.setup = d.flowSteps(v, "setup")
	}},
	{name: "flow", set: func(d *decoder, h *rawHTTP, k, v *yaml.Node) {
		h.flowKey = k
		h.flow = d.flowSteps(v, "flow")
	}},
}

var requestFields = []field[rawRequest]{
	scalarField("name", aName, func(r *rawRequest) **yaml.Node { return &r.name }),
	scalarField("method", aString, func(r *rawRequest) **yaml.Node { return &r.method }),
	scalarField("path", aString, func(r *rawRequest) **yaml.Node { return &r.path }),
	scalarField("url", aString, func(r *rawRequest) **yaml.Node { return &r.url }),
	{name: "headers", set: func(d *decoder, r *rawRequest, _, v *yaml.Node) { r.headers = d.scalarMap(v, "headers") }},
	scalarField("body", aString, func(r *rawRequest) **yaml.Node { return &r.body }),
	scalarField("weight", anInteger, func(r *rawRequest) **yaml.Node { return &r.weight }),
}

var expectFields = []field[rawExpect]{
	{name: "status", set: func(d *decoder, e *rawExpect, _, v *yaml.Node) {
		// A single code is accepted as shorthand for a one-element list.
		if n := d.deref(v); n.Kind == yaml.ScalarNode {
			e.status = []*yaml.Node{n}
			return
		}
		for _, n := range d.seq(v, "status") {
			if s := d.scalar(n, "status", anInteger); s != nil {
				e.status = append(e.status, s)
			}
		}
	}},
	scalarField("body_contains", aString, func(e *rawExpect) **yaml.Node { return &e.bodyContains }),
	scalarField("body_regex", aString, func(e *rawExpect) **yaml.Node { return &e.bodyRegex }),
	scalarField("length", anInteger, func(e *rawExpect) **yaml.Node { return &e.length }),
}
