package scenarios

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/units"
)

// Defaults of a search phase (SPEC §14).
const (
	// defaultProbeWarmup is the unmeasured start of every probe, long
	// enough for connections and caches to settle at the probe's rate.
	defaultProbeWarmup = time.Second
	// DefaultPrecision ends the bisection when the bracket is within 5 %.
	DefaultPrecision = 0.05
)

// maxConfirm bounds search.confirm: each confirmation is a whole probe.
const maxConfirm = 100

// searchPhase resolves a capacity-search phase. The search picks its own
// rates and probe lengths, so every field that sets a phase's load is
// refused beside it rather than silently ignored.
func (r *resolver) searchPhase(p *rawPhase, out *Phase) {
	for _, c := range []struct {
		at   *yaml.Node
		name string
	}{
		{p.rate.key, "rate"}, {p.concurrency.key, "concurrency"}, {p.duration, "duration"},
		{p.requests, "requests"}, {p.rampUp.key, "ramp_up"}, {p.thinkTime.key, "think_time"},
	} {
		if c.at != nil {
			r.d.errorf(c.at, "%s: not with search; a search phase picks its own rates (search.rate) and probe length (search.step)", c.name)
		}
	}
	if p.maxInFlight.key != nil {
		r.d.errorf(p.maxInFlight.key, "max_in_flight: in a search phase, write it inside search: (search.max_in_flight)")
	}
	if out.Warmup {
		r.d.errorf(p.searchKey, "search: a warm-up phase is not measured, and a search is all measurement")
	}
	s := p.search
	if s == nil {
		return // not a mapping, already reported
	}
	out.Search = &Search{ProbeWarmup: defaultProbeWarmup, Precision: DefaultPrecision, MaxInFlight: DefaultMaxInFlight}
	r.searchRate(s, out.Search)
	if s.step.key == nil {
		r.d.errorf(s.node, "search: missing required field %q (the measured time of each probe, e.g. 5s)", "step")
	} else if s.step.val != nil {
		if v, ok := r.duration(s.step.val, "search.step"); ok {
			if v == 0 {
				r.d.errorf(s.step.val, "search.step: must be greater than 0")
			}
			out.Search.Step = v
		}
	}
	if s.warmup.val != nil {
		if v, ok := r.duration(s.warmup.val, "search.warmup"); ok {
			out.Search.ProbeWarmup = v
		}
	}
	if s.precision.val != nil {
		if v, ok := r.precision(s.precision.val); ok {
			out.Search.Precision = v
		}
	}
	r.slo(s, out.Search)
	if s.confirm.val != nil {
		v, _ := r.intIn(s.confirm.val, "search.confirm", 0, maxConfirm)
		out.Search.Confirm = int(v)
	}
	if s.maxInFlight.val != nil {
		if v, ok := r.intIn(s.maxInFlight.val, "search.max_in_flight", 1, maxConcurrency); ok {
			out.Search.MaxInFlight = int(v)
		}
	}
}

// searchRate resolves `search.rate: {from, max}`.
func (r *resolver) searchRate(s *rawSearch, out *Search) {
	if s.rateKey == nil {
		r.d.errorf(s.node, "search: missing required field %q (rate: {from: R, max: M}, requests per second)", "rate")
		return
	}
	if s.rate == nil {
		return
	}
	var okFrom, okMax bool
	for _, f := range []struct {
		p     pair
		name  string
		value *float64
		ok    *bool
	}{{s.from, "from", &out.From, &okFrom}, {s.max, "max", &out.Max, &okMax}} {
		switch {
		case f.p.key == nil:
			r.d.errorf(s.rate, "search.rate: missing required field %q", f.name)
		case f.p.val != nil:
			*f.value, *f.ok = r.rateValue(f.p.val, "search.rate."+f.name, false)
		}
	}
	if okFrom && okMax && out.From > out.Max {
		r.d.errorf(s.rate, "search.rate: from (%s) is greater than max (%s); the search starts at from and grows up to max",
			formatRate(out.From), formatRate(out.Max))
	}
}

// slo keeps the SLO's text and where it starts; the assertions package
// compiles it, as it does thresholds.
func (r *resolver) slo(s *rawSearch, out *Search) {
	if s.slo.key == nil {
		r.d.errorf(s.node, "search: missing required field %q (a rule each probe must meet, e.g. p99 < 50ms)", "slo")
		return
	}
	if s.slo.val == nil {
		return
	}
	out.SLOPos = rulePos(r.d, s.slo.val)
	text, ok := r.text(s.slo.val)
	if ok && strings.TrimSpace(text) == "" {
		r.d.errorf(s.slo.val, "search.slo: must not be empty")
	}
	out.SLO = text
}

// precision resolves search.precision: a percentage such as 5%, or the
// same as a fraction (0.05), strictly between 0 and 100 %.
func (r *resolver) precision(n *yaml.Node) (float64, bool) {
	const label = "search.precision"
	s, ok := r.text(n)
	if !ok {
		return 0, false
	}
	s = strings.TrimSpace(s)
	isPercent := strings.HasSuffix(s, "%")
	var v float64
	var err error
	if isPercent {
		// A sign is not part of a percentage, but "-1%" deserves the
		// range message rather than a syntax one.
		body, neg := strings.CutPrefix(s, "-")
		if v, err = units.ParsePercent(body); neg {
			v = -v
		}
	} else if decimal.MatchString(s) {
		v, err = strconv.ParseFloat(s, 64)
	} else {
		err = units.ErrSyntax
	}
	if err != nil {
		r.d.errorf(n, "%s: expected %s, got %q", label, aPercent, s)
		return 0, false
	}
	switch {
	case v <= 0:
		r.d.errorf(n, "%s: must be above 0%%, got %s", label, s)
		return 0, false
	case v >= 1 && !isPercent:
		r.d.errorf(n, "%s: must be below 100%%, got %s (a fraction: write %s%% for %s percent)", label, s, s, s)
		return 0, false
	case v >= 1:
		r.d.errorf(n, "%s: must be below 100%%, got %s", label, s)
		return 0, false
	}
	return v, true
}

// formatRate prints a rate without a needless fraction.
func formatRate(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
