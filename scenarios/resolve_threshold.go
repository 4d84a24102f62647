package scenarios

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// threshold resolves one threshold entry, checking that the phase and
// target it narrows to exist. The rule itself is compiled by the
// assertions package; here it only has to be non-empty text.
func (r *resolver) threshold(t *rawThreshold, targets []string, phases []Phase) Threshold {
	out := Threshold{Severity: SeverityFail, Pos: r.d.pos(t.node)}
	if t.rule == nil {
		r.d.errorf(t.node, "threshold: missing required field %q", "rule")
		return out
	}
	out.RulePos = rulePos(r.d, t.rule)
	rule, ok := r.text(t.rule)
	if ok && strings.TrimSpace(rule) == "" {
		r.d.errorf(t.rule, "rule: must not be empty")
	}
	out.Rule = rule
	out.Name = out.Rule
	if t.name != nil {
		if s, _ := r.text(t.name); s != "" {
			out.Name = s
		}
	}
	if t.severity != nil {
		if s, ok := r.text(t.severity); ok {
			if sev, known := findWord(severityWords, s); known {
				out.Severity = sev
			} else {
				r.d.errorf(t.severity, "severity: expected %s, got %q", expected(severityWords), s)
			}
		}
	}
	if t.phase != nil {
		if s, ok := r.text(t.phase); ok {
			out.Phase = s
			i := slices.IndexFunc(phases, func(p Phase) bool { return p.Name == s })
			switch {
			case i < 0 && len(phases) > 0:
				r.d.errorf(t.phase, "phase: there is no phase named %q", s)
			case i >= 0 && phases[i].Warmup:
				r.d.errorf(t.phase, "phase: %q is a warmup phase, which is never judged", s)
			}
		}
	}
	if t.target != nil {
		if s, ok := r.text(t.target); ok {
			out.Target = s
			if !slices.Contains(targets, s) {
				r.d.errorf(t.target, "target: there is no target named %q", s)
			}
		}
	}
	r.abort(t, &out)
	return out
}

// abort resolves `abort: true` and `window:`. A warn rule cannot abort:
// stopping the run fails it, which a warning must never do.
func (r *resolver) abort(t *rawThreshold, out *Threshold) {
	if t.abort.val != nil {
		out.Abort, _ = r.bool(t.abort.val, "abort")
		if out.Abort && out.Severity == SeverityWarn {
			r.d.errorf(t.abort.key, "abort: a warn rule only reports; stopping the run would fail it (use severity: fail)")
		}
	}
	if t.window.val == nil {
		return
	}
	v, ok := r.duration(t.window.val, "window")
	switch {
	case !ok:
	case v == 0:
		r.d.errorf(t.window.val, "window: must be greater than 0")
	case !out.Abort && (t.abort.val == nil || isFalse(t.abort.val)):
		r.d.errorf(t.window.key, "window: needs abort: true; it is the span an abort rule is evaluated over while the phase runs")
	default:
		out.Window = v
	}
}

// isFalse reports whether scalar n is written as false, so that a mistyped
// abort: does not also earn a complaint about window.
func isFalse(n *yaml.Node) bool {
	switch n.Value {
	case "false", "False", "FALSE":
		return true
	}
	return false
}
