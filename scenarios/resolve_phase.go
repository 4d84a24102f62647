package scenarios

import (
	"slices"
)

// maxTrials bounds trials: each trial runs the whole phase again.
const maxTrials = 1000

// phases resolves every phase for one matrix combination.
func (r *resolver) phases(raw *rawScenario, names []string) []Phase {
	var out []Phase
	measured := false
	// A baseline_target that is written counts, valid or not: its own
	// diagnostic says what is wrong with it.
	ab := slices.ContainsFunc(raw.targets, func(t *rawTarget) bool { return t.baselineTarget != nil })
	for i, p := range raw.phases {
		if !p.ok {
			continue
		}
		ph := r.phase(p, names[i], ab)
		measured = measured || !ph.Warmup
		out = append(out, ph)
	}
	if len(out) > 0 && !measured {
		r.d.errorf(raw.phasesKey, "phases: needs at least one phase without warmup: true, to measure")
	}
	return out
}

// phase resolves one phase; ab says whether some target of the scenario
// has a baseline_target, whose trials an interleaved phase alternates with.
func (r *resolver) phase(p *rawPhase, name string, ab bool) Phase {
	out := Phase{Name: name, Pos: r.d.pos(p.node), Trials: 1, GracefulStop: DefaultGracefulStop}
	if p.warmup != nil {
		out.Warmup, _ = r.bool(p.warmup, "warmup")
	}
	if p.gracefulStop.val != nil {
		out.GracefulStop, _ = r.duration(p.gracefulStop.val, "graceful_stop")
	}
	if p.searchKey != nil {
		r.searchPhase(p, &out)
	} else {
		r.load(p, name, &out)
	}
	trialsOK := r.trials(p, &out)
	if p.interleave.val != nil {
		out.Interleave = r.interleave(p, out, ab, trialsOK)
	}
	return out
}

// load resolves how an ordinary phase loads its target: when it stops, and
// its open or closed model.
func (r *resolver) load(p *rawPhase, name string, out *Phase) {
	if p.duration != nil {
		if v, ok := r.duration(p.duration, "duration"); ok {
			if v == 0 {
				r.d.errorf(p.duration, "duration: must be greater than 0")
			}
			out.Duration = v
		}
	}
	if p.requests != nil {
		out.Requests, _ = r.intIn(p.requests, "requests", 1, 1<<62)
	}
	if p.duration == nil && p.requests == nil {
		r.d.errorf(p.node, "%s: needs duration or requests, to know when to stop", described("phase", name))
	}
	// Writing rate is what chooses the open model, whether or not its
	// value is valid: otherwise one typo in the rate would bring a flood of
	// closed-model complaints about a phase that was never meant to be one.
	if p.rate.key != nil {
		r.openModel(p, out)
	} else {
		r.closedModel(p, out)
	}
}

// trials resolves `trials: N` or `trials: {min, max, until: decisive}`; it
// reports whether what was written is valid, for interleave's sake.
func (r *resolver) trials(p *rawPhase, out *Phase) bool {
	switch {
	case p.trials.key == nil:
		return true
	case out.Warmup:
		r.d.errorf(p.trials.key, "trials: warm-up phases are not measured; trials has no meaning there")
		return true
	case p.trialsRange != nil:
		return r.adaptive(p.trialsRange, out)
	case p.trials.val != nil:
		v, ok := r.intIn(p.trials.val, "trials", 1, maxTrials)
		if ok {
			out.Trials = int(v)
		}
		return ok
	}
	return true
}

// adaptive resolves `trials: {min, max, until: decisive}`. min is at least
// 2 because regressed() can never be decisive on a single trial.
func (r *resolver) adaptive(t *rawTrials, out *Phase) bool {
	ok := true
	var lo, hi int64
	for _, f := range []struct {
		p     pair
		name  string
		value *int64
	}{{t.min, "min", &lo}, {t.max, "max", &hi}} {
		switch {
		case f.p.key == nil:
			r.d.errorf(t.node, "trials: missing required field %q", f.name)
			ok = false
		case f.p.val == nil:
			ok = false
		default:
			v, good := r.intIn(f.p.val, "trials."+f.name, 2, maxTrials)
			*f.value, ok = v, ok && good
		}
	}
	if ok && lo > hi {
		r.d.errorf(t.node, "trials: min (%d) is greater than max (%d)", lo, hi)
		ok = false
	}
	switch {
	case t.until.key == nil:
		r.d.errorf(t.node, "trials: missing required field %q (until: decisive adds trials until every regressed() is decisive)", "until")
		ok = false
	case t.until.val != nil:
		if s, good := r.text(t.until.val); !good {
			ok = false
		} else if _, known := findWord(untilWords, s); !known {
			r.d.errorf(t.until.val, "trials.until: expected %q (add trials until every regressed() is pass or regressed), got %q", untilWords[0].text, s)
			ok = false
		}
	default:
		ok = false
	}
	if ok {
		out.Trials = int(lo)
		out.Adaptive = &AdaptiveTrials{Min: int(lo), Max: int(hi)}
	}
	return ok
}

// interleave resolves `interleave:`, which only means something where
// there are trials of two targets to alternate.
func (r *resolver) interleave(p *rawPhase, ph Phase, ab, trialsOK bool) bool {
	on, ok := r.bool(p.interleave.val, "interleave")
	switch {
	case !ok || !on:
		return false
	case ph.Warmup:
		r.d.errorf(p.interleave.key, "interleave: warm-up phases are not measured; there are no trials to alternate")
	case !ab:
		r.d.errorf(p.interleave.key, "interleave alternates the trials of a target and its baseline_target; no target has one")
	case trialsOK && ph.Trials < 2:
		r.d.errorf(p.interleave.key, "interleave: needs trials of 2 or more; a single trial has nothing to alternate with")
	default:
		return trialsOK
	}
	return false
}

func (r *resolver) closedModel(p *rawPhase, out *Phase) {
	out.Concurrency = 1
	if p.maxInFlight.key != nil {
		r.d.errorf(p.maxInFlight.key, "max_in_flight: caps the open model and needs rate; in the closed model, concurrency is the cap")
	}
	if from, to, ok := r.concurrency(&p.concurrency); ok {
		out.Concurrency = to
		// A ramp from N to N is a constant level; keeping it as one spares
		// the runner a ramp of slope 0 and frees the phase from needing
		// duration.
		if from != to {
			out.ConcurrencyFrom = from
		}
	}
	ramp := out.ConcurrencyFrom > 0
	if ramp && p.duration == nil {
		r.d.errorf(p.concurrency.key, "concurrency: a ramp {from, to} spans the phase and needs duration")
	}
	if p.rampUp.key != nil && ramp {
		r.d.errorf(p.rampUp.key, "ramp_up: the concurrency ramp already starts workers gradually; use one or the other")
	} else if p.rampUp.val != nil {
		if v, ok := r.duration(p.rampUp.val, "ramp_up"); ok {
			if out.Duration > 0 && v >= out.Duration {
				r.d.errorf(p.rampUp.val, "ramp_up: must be shorter than the phase's duration (%s), got %s", out.Duration, v)
			}
			out.RampUp = v
		}
	}
	if p.thinkTime.val != nil {
		out.ThinkTime, _ = r.duration(p.thinkTime.val, "think_time")
	}
}

func (r *resolver) openModel(p *rawPhase, out *Phase) {
	if p.concurrency.key != nil {
		r.d.errorf(later(p.rate.key, p.concurrency.key), "rate and concurrency are exclusive: rate is the open model, concurrency the closed one")
	}
	if p.rampUp.key != nil {
		r.d.errorf(p.rampUp.key, "ramp_up: only for the closed model (concurrency); to ramp an open-model phase, write rate: {from: A, to: B}")
	}
	if p.thinkTime.key != nil {
		r.d.errorf(p.thinkTime.key, "think_time: only for the closed model (concurrency); with rate, requests are sent on schedule, not after responses")
	}
	if rate, ok := r.rate(&p.rate); ok {
		out.Rate = rate
		if rate.From != rate.To && p.duration == nil {
			r.d.errorf(p.rate.key, "rate: a ramp {from, to} spans the phase and needs duration")
		}
	}
	out.MaxInFlight = DefaultMaxInFlight
	if p.maxInFlight.val != nil {
		if v, ok := r.intIn(p.maxInFlight.val, "max_in_flight", 1, maxConcurrency); ok {
			out.MaxInFlight = int(v)
		}
	}
}

// concurrency resolves `concurrency: N` as a ramp from N to N, or
// `concurrency: {from, to}`. A ramp starts at one worker at least, so that
// ConcurrencyFrom == 0 can keep meaning "no ramp". ok is false when nothing
// valid was written.
func (r *resolver) concurrency(c *rawRamp) (from, to int, ok bool) {
	switch {
	case c.value != nil:
		v, ok := r.intIn(c.value, "concurrency", 1, maxConcurrency)
		return int(v), int(v), ok
	case c.ramp != nil && r.complete(c, "concurrency"):
		f, okFrom := r.int(c.from.val, "concurrency.from")
		if okFrom && f < 1 {
			r.d.errorf(c.from.val, "concurrency.from: must be at least 1, got %d (a ramp starts with one worker or more)", f)
			okFrom = false
		}
		t, okTo := r.intIn(c.to.val, "concurrency.to", 1, maxConcurrency)
		if !okFrom || !okTo {
			return 0, 0, false
		}
		if f > t {
			r.d.errorf(c.ramp, "concurrency: from (%d) is greater than to (%d); a concurrency ramp only grows", f, t)
			return 0, 0, false
		}
		return int(f), int(t), true
	}
	return 0, 0, false
}

// rate resolves `rate: R` as a constant rate, or `rate: {from, to}`. A
// ramp may start or end at 0 (ramping up from idle, draining to idle), but
// a constant rate of 0 sends nothing.
func (r *resolver) rate(c *rawRamp) (Rate, bool) {
	switch {
	case c.value != nil:
		v, ok := r.rateValue(c.value, "rate", false)
		return Rate{From: v, To: v}, ok
	case c.ramp != nil && r.complete(c, "rate"):
		from, okFrom := r.rateValue(c.from.val, "rate.from", true)
		to, okTo := r.rateValue(c.to.val, "rate.to", true)
		if !okFrom || !okTo {
			return Rate{}, false
		}
		if from == 0 && to == 0 {
			r.d.errorf(c.ramp, "rate: from and to are both 0; a ramp needs at least one of them above 0")
			return Rate{}, false
		}
		return Rate{From: from, To: to}, true
	}
	return Rate{}, false
}

// complete reports whether ramp mapping c has both ends, after reporting
// the missing ones. An end with a mistyped value was reported when decoding.
func (r *resolver) complete(c *rawRamp, label string) bool {
	if c.from.key == nil {
		r.d.errorf(c.ramp, "%s: missing required field %q", label, "from")
	}
	if c.to.key == nil {
		r.d.errorf(c.ramp, "%s: missing required field %q", label, "to")
	}
	return c.from.val != nil && c.to.val != nil
}
