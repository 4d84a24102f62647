package scenarios

import (
	"go.yaml.in/yaml/v3"
)

// rawPrometheus is a monitor's `prometheus:` block. Every field is kept
// with its key: which of them are written decides the form (explicit
// queries, node_exporter's or process-exporter's), and a field that does
// not belong to that form is reported at its key.
type rawPrometheus struct {
	key, node                *yaml.Node
	ok                       bool
	url, cpu, rss            pair
	job, instance, groupname pair
	window, step, settle     pair
	labelsKey                *yaml.Node
	labels                   []pair
}

var prometheusFields = []field[rawPrometheus]{
	promScalar("url", aString, func(p *rawPrometheus) *pair { return &p.url }),
	promScalar("cpu", aString, func(p *rawPrometheus) *pair { return &p.cpu }),
	promScalar("rss", aString, func(p *rawPrometheus) *pair { return &p.rss }),
	promScalar("job", aString, func(p *rawPrometheus) *pair { return &p.job }),
	promScalar("instance", aString, func(p *rawPrometheus) *pair { return &p.instance }),
	promScalar("groupname", aString, func(p *rawPrometheus) *pair { return &p.groupname }),
	{name: "labels", set: func(d *decoder, p *rawPrometheus, k, v *yaml.Node) {
		p.labelsKey = k
		p.labels = d.scalarMap(v, "labels")
	}},
	promScalar("window", aDuration, func(p *rawPrometheus) *pair { return &p.window }),
	promScalar("step", aDuration, func(p *rawPrometheus) *pair { return &p.step }),
	promScalar("settle", aDuration, func(p *rawPrometheus) *pair { return &p.settle }),
}

// promScalar is a field of the prometheus block whose value is one
// scalar, kept with its key.
func promScalar(name, noun string, ptr func(*rawPrometheus) *pair) field[rawPrometheus] {
	return field[rawPrometheus]{name: name, set: func(d *decoder, p *rawPrometheus, k, v *yaml.Node) {
		*ptr(p) = pair{k, d.scalar(v, name, noun)}
	}}
}

func (d *decoder) prometheus(k, v *yaml.Node) *rawPrometheus {
	p := &rawPrometheus{key: k, node: d.deref(v)}
	p.ok = fields(d, v, "prometheus", "prometheus", prometheusFields, p)
	return p
}
