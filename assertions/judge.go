package assertions

import (
	"errors"
	"fmt"
	"strings"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
)

// Reasons a verdict is skipped, for callers that tell them apart.
const (
	ReasonNoBaseline = "no baseline loaded"
	ReasonNoPhase    = "no measured phase"
)

// Judge evaluates every threshold on every case it applies to
// (Threshold.Target and Threshold.Phase narrow it), in case order, then
// threshold order. Only measured phases are seen: warm-up never enters a
// rule. A case whose measured phases completed no request is still judged,
// so `rps > 0` fails honestly instead of being skipped.
func (r *Rules) Judge(res *runner.ScenarioResult) []Verdict {
	if r == nil || res == nil {
		return nil
	}
	var out []Verdict
	var m vm.VM
	for _, c := range res.Cases {
		cj := &caseJudge{c: c, m: &m, envs: map[string]*Env{}}
		for _, ru := range r.rules {
			if ru.th.Target != "" && ru.th.Target != c.Target {
				continue
			}
			out = append(out, cj.judge(ru))
		}
	}
	return out
}

// caseJudge holds one case's environments, built once per phase narrowing
// and shared by every rule that asks for the same one.
type caseJudge struct {
	c      *runner.CaseResult
	m      *vm.VM
	envs   map[string]*Env // by Threshold.Phase
	matrix map[string]any
}

func (cj *caseJudge) judge(ru *rule) Verdict {
	th := ru.th
	v := Verdict{
		Case:     cj.c.ID,
		Target:   cj.c.Target,
		Phase:    th.Phase,
		Name:     th.Name,
		Rule:     th.Rule,
		Severity: th.Severity,
		Pos:      th.RulePos,
	}
	if v.Name == "" {
		v.Name = th.Rule
	}
	if v.Severity == "" {
		v.Severity = scenarios.SeverityFail
	}

	phases := cj.c.Measured(th.Phase)
	switch {
	case len(phases) == 0 && cj.c.Err != "":
		v.Status, v.Reason = StatusSkip, "case was not carried out: "+cj.c.Err
		return v
	case len(phases) == 0 && th.Phase != "":
		v.Status, v.Reason = StatusSkip, fmt.Sprintf("%s named %q", ReasonNoPhase, th.Phase)
		return v
	case len(phases) == 0:
		v.Status, v.Reason = StatusSkip, ReasonNoPhase
		return v
	case ru.needsBaseline:
		v.Status, v.Reason = StatusSkip, ReasonNoBaseline
		return v
	}

	env := cj.env(th.Phase, phases, ru.byName)
	for _, name := range ru.requests {
		if _, ok := env.RequestsByName[name]; !ok {
			// The mix of another target: judging zeros would pass in silence.
			v.Status, v.Reason = StatusSkip, fmt.Sprintf("target %q has no request named %q", cj.c.Target, name)
			return v
		}
	}
	got, err := cj.m.Run(ru.program, env)
	v.Actual = cj.actual(ru, env)
	switch ok, isBool := got.(bool); {
	case err != nil:
		v.Status, v.Reason = StatusError, runtimeMessage(err)
	case !isBool:
		v.Status, v.Reason = StatusError, fmt.Sprintf("the rule gave %T, not true or false", got)
	case ok:
		v.Status = StatusPass
	default:
		v.Status = StatusFail
	}
	return v
}

// env builds (or reuses) the environment of one phase narrowing.
func (cj *caseJudge) env(phase string, phases []*runner.PhaseResult, byName bool) *Env {
	e, ok := cj.envs[phase]
	if !ok {
		if cj.matrix == nil {
			cj.matrix = make(map[string]any, len(cj.c.Matrix))
			for _, mv := range cj.c.Matrix {
				cj.matrix[mv.Key] = mv.Value
			}
		}
		st := runner.Summarize(phases)
		e = &Env{
			Metrics: metricsOf(st),
			Phase:   phase,
			Target:  cj.c.Target,
			Matrix:  cj.matrix,
			Dropped: st.Dropped,
			SendLag: st.SendLag,
			Trials:  1,
		}
		if st.Trials != nil {
			e.Trials, e.RPSCV = st.Trials.N, st.Trials.RPSCV
		}
		if phase == "" {
			e.Phase = "measured"
		}
		cj.envs[phase] = e
	}
	if byName && e.RequestsByName == nil {
		e.RequestsByName = map[string]Metrics{}
		for _, p := range phases {
			for _, n := range p.ByName {
				if _, done := e.RequestsByName[n.Name]; done {
					continue
				}
				s, _ := runner.SummarizeNamed(phases, n.Name)
				e.RequestsByName[n.Name] = metricsOf(s)
			}
		}
	}
	return e
}

// actual lists the values the rule read, e.g. "p99 = 63.2ms, rps = 1234.5".
// A value that cannot be computed on its own (say p(200)) is left out: the
// verdict's Reason already says why the rule failed.
func (cj *caseJudge) actual(ru *rule, env *Env) string {
	var parts []string
	for _, s := range ru.shown {
		got, err := cj.m.Run(s.program, env)
		if err != nil {
			continue
		}
		if text, ok := formatValue(got); ok {
			parts = append(parts, s.name+" = "+text)
		}
	}
	return strings.Join(parts, ", ")
}

// runtimeMessage keeps expr's message and drops its source snippet, which
// shows the rewritten rule and spans lines; reports want one line.
func runtimeMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fe.Message
	}
	return err.Error()
}
