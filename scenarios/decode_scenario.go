package scenarios

import (
	"go.yaml.in/yaml/v3"
)

// The raw* types are the first of two passes over a file: the shape of the
// document is checked once (unknown fields, lists versus mappings) and every
// scalar is kept as its node, so that the second pass can substitute
// variables per matrix combination and still point at the exact position.

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
	data                       []*rawData
}

// rawVar is one entry of `vars:`, written `name: value` or
// `name: {value: ..., secret: true}`.
type rawVar struct {
	key, val *yaml.Node
	secret   *yaml.Node // nil unless the long form says
}

type rawAxis struct {
	key    *yaml.Node
	values []*yaml.Node
}

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
	setupKey, flowKey                  *yaml.Node
	setup, flow                        []*rawFlowStep
}

type rawTLS struct {
	insecureSkipVerify, caFile *yaml.Node
	certFile, keyFile          *yaml.Node
	resume, postQuantum        *yaml.Node
}

type rawExpect struct {
	status                          []*yaml.Node
	bodyContains, bodyRegex, length *yaml.Node
}

type rawRequest struct {
	node                                  *yaml.Node
	ok                                    bool
	name, method, path, url, body, weight *yaml.Node
	headers                               []pair
}

// rawPhase keeps the load-model fields with their keys: those fields
// exclude or require one another, and such a conflict is reported at the
// key, where the reader looks for it. A key whose value is mistyped still
// counts as written.
type rawPhase struct {
	node                             *yaml.Node
	ok                               bool
	name, warmup, duration, requests *yaml.Node
	concurrency, rate                rawRamp
	rampUp, thinkTime                pair
	maxInFlight, trials              pair
	interleave, gracefulStop         pair
	// trialsRange is the mapping form of trials, `{min, max, until}`;
	// trials.val is then nil.
	trialsRange *rawTrials
	searchKey   *yaml.Node
	search      *rawSearch
}

// rawSearch is a phase's `search:` mapping (SPEC §14).
type rawSearch struct {
	node                         *yaml.Node
	rateKey, rate                *yaml.Node
	from, max                    pair
	step, warmup, precision, slo pair
	confirm, maxInFlight         pair
}

// rawTrials is `trials: {min, max, until: decisive}`.
type rawTrials struct {
	node            *yaml.Node
	min, max, until pair
}

// rawRamp is a value written either as one scalar or as a linear ramp
// `{from: A, to: B}` across the phase. key is nil when it was not written.
type rawRamp struct {
	key      *yaml.Node
	value    *yaml.Node // the one-scalar form
	ramp     *yaml.Node // the mapping form, with from and to
	from, to pair
}

type rawThreshold struct {
	node                                *yaml.Node
	ok                                  bool
	rule, name, severity, phase, target *yaml.Node
	abort, window                       pair
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
	{name: "data", set: func(d *decoder, s *rawScenario, _, v *yaml.Node) { s.data = d.dataList(v) }},
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
	{name: "setup", set: func(d *decoder, h *rawHTTP, k, v *yaml.Node) {
		h.setupKey = k
		h.setup = d.flowSteps(v, "setup")
	}},
	{name: "flow", set: func(d *decoder, h *rawHTTP, k, v *yaml.Node) {
		h.flowKey = k
		h.flow = d.flowSteps(v, "flow")
	}},
}

var tlsFields = []field[rawTLS]{
	scalarField("insecure_skip_verify", aBool, func(t *rawTLS) **yaml.Node { return &t.insecureSkipVerify }),
	scalarField("ca_file", aString, func(t *rawTLS) **yaml.Node { return &t.caFile }),
	scalarField("cert_file", aString, func(t *rawTLS) **yaml.Node { return &t.certFile }),
	scalarField("key_file", aString, func(t *rawTLS) **yaml.Node { return &t.keyFile }),
	scalarField("resume", aBool, func(t *rawTLS) **yaml.Node { return &t.resume }),
	scalarField("post_quantum", aBool, func(t *rawTLS) **yaml.Node { return &t.postQuantum }),
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

var phaseFields = []field[rawPhase]{
	scalarField("name", aName, func(p *rawPhase) **yaml.Node { return &p.name }),
	scalarField("warmup", aBool, func(p *rawPhase) **yaml.Node { return &p.warmup }),
	scalarField("duration", aDuration, func(p *rawPhase) **yaml.Node { return &p.duration }),
	scalarField("requests", anInteger, func(p *rawPhase) **yaml.Node { return &p.requests }),
	rampField("concurrency", anInteger, func(p *rawPhase) *rawRamp { return &p.concurrency }),
	keyedField("ramp_up", aDuration, func(p *rawPhase) *pair { return &p.rampUp }),
	keyedField("think_time", aDuration, func(p *rawPhase) *pair { return &p.thinkTime }),
	rampField("rate", aRate, func(p *rawPhase) *rawRamp { return &p.rate }),
	keyedField("max_in_flight", anInteger, func(p *rawPhase) *pair { return &p.maxInFlight }),
	keyedField("graceful_stop", aDuration, func(p *rawPhase) *pair { return &p.gracefulStop }),
	{name: "trials", set: func(d *decoder, p *rawPhase, k, v *yaml.Node) {
		p.trials.key = k
		switch n := d.deref(v); n.Kind {
		case yaml.ScalarNode:
			p.trials.val = n
		case yaml.MappingNode:
			t := &rawTrials{node: n}
			if fields(d, n, "trials", "trials", trialsFields, t) {
				p.trialsRange = t
			}
		default:
			d.errorf(n, "trials: expected %s or {min: N, max: M, until: decisive}, got %s", anInteger, describe(n))
		}
	}},
	keyedField("interleave", aBool, func(p *rawPhase) *pair { return &p.interleave }),
	{name: "search", set: func(d *decoder, p *rawPhase, k, v *yaml.Node) {
		p.searchKey = k
		s := &rawSearch{node: d.deref(v)}
		if fields(d, v, "search", "search", searchFields, s) {
			p.search = s
		}
	}},
}

var trialsFields = []field[rawTrials]{
	{name: "min", set: func(d *decoder, t *rawTrials, k, v *yaml.Node) { t.min = pair{k, d.scalar(v, "trials.min", anInteger)} }},
	{name: "max", set: func(d *decoder, t *rawTrials, k, v *yaml.Node) { t.max = pair{k, d.scalar(v, "trials.max", anInteger)} }},
	{name: "until", set: func(d *decoder, t *rawTrials, k, v *yaml.Node) {
		t.until = pair{k, d.scalar(v, "trials.until", aString)}
	}},
}

// searchField is a scalar of `search:` kept with its key.
func searchField(name, noun string, ptr func(*rawSearch) *pair) field[rawSearch] {
	return field[rawSearch]{name: name, set: func(d *decoder, s *rawSearch, k, v *yaml.Node) {
		*ptr(s) = pair{key: k, val: d.scalar(v, "search."+name, noun)}
	}}
}

var searchFields = []field[rawSearch]{
	{name: "rate", set: func(d *decoder, s *rawSearch, k, v *yaml.Node) {
		s.rateKey = k
		if fields(d, v, "search.rate", "search.rate", searchRateFields, s) {
			s.rate = d.deref(v)
		}
	}},
	searchField("step", aDuration, func(s *rawSearch) *pair { return &s.step }),
	searchField("warmup", aDuration, func(s *rawSearch) *pair { return &s.warmup }),
	searchField("precision", aPercent, func(s *rawSearch) *pair { return &s.precision }),
	searchField("slo", aString, func(s *rawSearch) *pair { return &s.slo }),
	searchField("confirm", anInteger, func(s *rawSearch) *pair { return &s.confirm }),
	searchField("max_in_flight", anInteger, func(s *rawSearch) *pair { return &s.maxInFlight }),
}

var searchRateFields = []field[rawSearch]{
	{name: "from", set: func(d *decoder, s *rawSearch, k, v *yaml.Node) {
		s.from = pair{k, d.scalar(v, "search.rate.from", aRate)}
	}},
	{name: "max", set: func(d *decoder, s *rawSearch, k, v *yaml.Node) {
		s.max = pair{k, d.scalar(v, "search.rate.max", aRate)}
	}},
}

// keyedField is a scalar phase field kept with its key.
func keyedField(name, noun string, ptr func(*rawPhase) *pair) field[rawPhase] {
	return field[rawPhase]{name: name, set: func(d *decoder, p *rawPhase, k, v *yaml.Node) {
		*ptr(p) = pair{key: k, val: d.scalar(v, name, noun)}
	}}
}

// rampField is a phase field that takes one value or a ramp of them.
func rampField(name, noun string, ptr func(*rawPhase) *rawRamp) field[rawPhase] {
	return field[rawPhase]{name: name, set: func(d *decoder, p *rawPhase, k, v *yaml.Node) {
		r := ptr(p)
		r.key = k
		switch n := d.deref(v); n.Kind {
		case yaml.ScalarNode:
			r.value = n
		case yaml.MappingNode:
			r.ramp = n
			fields(d, n, name, name, rampFields(name, noun), r)
		default:
			d.errorf(n, "%s: expected %s or a ramp {from: A, to: B}, got %s", name, noun, describe(n))
		}
	}}
}

// rampFields is the table of a ramp mapping; label names the field that
// holds it, so that a mistake reads `rate.from: …`.
func rampFields(label, noun string) []field[rawRamp] {
	return []field[rawRamp]{
		{name: "from", set: func(d *decoder, r *rawRamp, k, v *yaml.Node) { r.from = pair{k, d.scalar(v, label+".from", noun)} }},
		{name: "to", set: func(d *decoder, r *rawRamp, k, v *yaml.Node) { r.to = pair{k, d.scalar(v, label+".to", noun)} }},
	}
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

var varFields = []field[rawVar]{
	scalarField("value", aValue, func(v *rawVar) **yaml.Node { return &v.val }),
	scalarField("secret", aBool, func(v *rawVar) **yaml.Node { return &v.secret }),
}

// vars reads `vars:`: each entry a scalar, or a mapping with a value and
// whether it is secret.
func (d *decoder) vars(n *yaml.Node) []rawVar {
	n = d.deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "vars: expected a mapping, got %s", describe(n))
		return nil
	}
	var out []rawVar
	for _, kv := range d.pairs(n, 0) {
		if d.exhausted() {
			break
		}
		v := d.deref(kv.val)
		switch v.Kind {
		case yaml.ScalarNode:
			out = append(out, rawVar{key: kv.key, val: v})
		case yaml.MappingNode:
			rv := rawVar{key: kv.key}
			if fields(d, v, "vars."+kv.key.Value, "variable", varFields, &rv) {
				if rv.val == nil {
					d.errorf(v, "vars.%s: missing required field %q", kv.key.Value, "value")
					continue
				}
				out = append(out, rv)
			}
		default:
			d.errorf(v, "vars.%s: expected %s or {value: ..., secret: true}, got %s", kv.key.Value, aValue, describe(v))
		}
	}
	return out
}

// scenario runs the first pass over the document's root node.
func (d *decoder) scenario(root *yaml.Node) *rawScenario {
	s := &rawScenario{root: d.deref(root)}
	s.ok = fields(d, root, "scenario", "scenario", scenarioFields, s)
	d.oneProcess(s.server, s.monitor)
	d.ownProcesses(s)
	return s
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

// matrix reads `matrix:`: axes in file order, each a non-empty list of scalars.
func (d *decoder) matrix(n *yaml.Node) []rawAxis {
	n = d.deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "matrix: expected a mapping from names to lists of values, got %s", describe(n))
		return nil
	}
	var axes []rawAxis
	for _, kv := range d.pairs(n, 0) {
		if d.exhausted() {
			break
		}
		key := kv.key.Value
		if !validVarName(key) {
			d.errorf(kv.key, "matrix: %q is not a valid variable name (letters, digits and _, not starting with a digit)", key)
			continue
		}
		list := d.deref(kv.val)
		values := d.seq(list, "matrix."+key)
		if len(values) == 0 {
			if list.Kind == yaml.SequenceNode {
				d.errorf(kv.key, "matrix.%s: needs at least one value", key)
			}
			continue
		}
		ax := rawAxis{key: kv.key}
		for _, v := range values {
			if s := d.scalar(v, "matrix."+key, aValue); s != nil {
				if isNull(s) {
					d.errorf(s, "matrix.%s: expected a value, got nothing", key)
					continue
				}
				ax.values = append(ax.values, s)
			}
		}
		axes = append(axes, ax)
	}
	return axes
}
