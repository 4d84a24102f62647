package scenarios

import "go.yaml.in/yaml/v3"

// rawSearch is a phase's `search:` mapping (SPEC §14).
type rawSearch struct {
	node                         *yaml.Node
	rateKey, rate                *yaml.Node
	from, max                    pair
	step, warmup, precision, slo pair
	confirm, maxInFlight         pair
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
