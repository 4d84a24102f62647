package scenarios

import "go.yaml.in/yaml/v3"

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

// rawRamp is a value written either as one scalar or as a linear ramp
// `{from: A, to: B}` across the phase. key is nil when it was not written.
type rawRamp struct {
	key      *yaml.Node
	value    *yaml.Node // the one-scalar form
	ramp     *yaml.Node // the mapping form, with from and to
	from, to pair
}

// rawTrials is `trials: {min, max, until: decisive}`.
type rawTrials struct {
	node            *yaml.Node
	min, max, until pair
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
