package assertions

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// compileSLOs compiles the SLO of every search phase like a threshold, so a
// typo in it is a load-time error at its file:line:col, not a search that
// fails every probe. Each distinct SLO text is compiled (and reported) once.
func (r *Rules) compileSLOs(sc *scenarios.Scenario, k *known) scenarios.ErrorList {
	var errs scenarios.ErrorList
	for _, c := range sc.Cases {
		for _, ph := range c.Phases {
			s := ph.Search
			if s == nil {
				continue
			}
			if _, done := r.slos[s.SLO]; done {
				continue
			}
			th := scenarios.Threshold{Name: "slo", Rule: s.SLO, Severity: scenarios.SeverityFail, Pos: ph.Pos, RulePos: s.SLOPos}
			if th.RulePos == (scenarios.Pos{}) {
				th.RulePos = ph.Pos
			}
			if th.RulePos.File == "" {
				th.RulePos.File = sc.File
			}
			ru, ruleErrs := compileRule(th, k)
			if len(ruleErrs) == 0 {
				ruleErrs = liveErrors(ru, "search.slo", "an SLO judges each probe as it ends")
			}
			for _, e := range ruleErrs {
				e.Msg = strings.Replace(e.Msg, "invalid rule: ", "invalid slo: ", 1)
				e.Msg = strings.Replace(e.Msg, "a threshold must be", "an SLO must be", 1)
				errs = append(errs, e)
			}
			r.slos[s.SLO] = ru
		}
	}
	return errs
}

// abortErrors refuses an abort rule that cannot be evaluated while its
// phase runs.
func abortErrors(ru *rule) scenarios.ErrorList {
	return liveErrors(ru, "abort", "an abort rule is evaluated every second while its phase runs")
}

// liveErrors refuses what a rule evaluated during a phase (an SLO, an abort
// rule) cannot see: the live figures are the load's own, with no baseline,
// no server samples, no per-request breakdown and no capacity yet.
func liveErrors(ru *rule, what, when string) scenarios.ErrorList {
	var msg string
	switch {
	case ru.needsBaseline:
		msg = "it cannot read baseline or call regressed(), which compare whole runs once they are over"
	case ru.usage.server || ru.usage.host:
		msg = "server.* and host.* are sampled for the whole case, not watched live"
	case ru.servers.roots > 0:
		msg = "servers.* are sampled for the whole case, not watched live"
	case ru.byName:
		msg = "requests_by_name is only summarised once the phase is over"
	case ru.usage.capacity:
		msg = "capacity is what a search finds once it is over"
	default:
		return nil
	}
	return scenarios.ErrorList{scenarios.Errorf(ru.th.RulePos, "%s: %s; %s", what, when, msg)}
}

// Hooks are the evaluations the engine makes while it runs: the search
// phases' SLOs, the abort rules and, for adaptive trials, whether every
// regressed() is decisive yet. Its fields are runner.Judge's, and the
// command converts one into the other (runner.Judge(h)), so that judging
// does not depend on the engine; a field that drifts breaks that
// conversion at compile time. A nil field means none.
type Hooks struct {
	SLO      func(c *scenarios.Case, ph *scenarios.Phase, probe results.Stats) (passed bool, actual string, err error)
	Abort    func(c *scenarios.Case, ph *scenarios.Phase, elapsed time.Duration, stats func(window time.Duration) results.Stats) *results.Aborted
	Decisive func(ph *scenarios.Phase, cases []*results.CaseResult) bool
}

// Hooks returns the engine's evaluations of r. opts are the judgement's
// own, so that Decisive compares with the same baseline the verdicts will.
func (r *Rules) Hooks(opts JudgeOptions) Hooks {
	if r == nil {
		return Hooks{}
	}
	j := Hooks{
		SLO: r.SLO,
		Decisive: func(ph *scenarios.Phase, cases []*results.CaseResult) bool {
			return r.Decisive(ph, cases, opts)
		},
	}
	for _, ru := range r.rules {
		if ru.th.Abort {
			j.Abort = r.Abort
			break
		}
	}
	return j
}

// SLO judges one probe of search phase ph of case c against the phase's
// SLO: whether it passed, and the values the SLO read ("p99 = 61ms,
// error_rate = 0").
func (r *Rules) SLO(c *scenarios.Case, ph *scenarios.Phase, probe results.Stats) (passed bool, actual string, err error) {
	if ph == nil || ph.Search == nil {
		return false, "", errors.New("not a search phase")
	}
	ru := r.slos[ph.Search.SLO]
	if ru == nil || ru.program == nil {
		return false, "", fmt.Errorf("SLO %q was not compiled with the scenario", ph.Search.SLO)
	}
	env := liveEnv(c, ph.Name, probe)
	var m vm.VM
	got, err := m.Run(ru.program, env)
	actual = actualOf(&m, ru, env)
	if err != nil {
		return false, actual, fmt.Errorf("slo %s: %s", ru.th.Rule, runtimeMessage(err))
	}
	ok, isBool := got.(bool)
	if !isBool {
		return false, actual, fmt.Errorf("slo %s gave %T, not true or false", ru.th.Rule, got)
	}
	return ok, actual, nil
}

// Abort evaluates every abort rule of case c that applies to phase ph (a
// threshold's phase: and target: narrow it, as in Judge) on the phase so
// far, or on its last Window; it returns the first that fails, nil when
// none does. A rule with nothing completed in its span, and no request
// waiting for a tick or more, is not evaluated: there is no evidence yet
// either way, and `rps > 100` must not stop a phase in its first second. A rule that cannot be evaluated (p(200))
// does not stop the run; its verdict reports the error afterwards.
func (r *Rules) Abort(c *scenarios.Case, ph *scenarios.Phase, elapsed time.Duration, stats func(window time.Duration) results.Stats) *results.Aborted {
	if r == nil || c == nil || ph == nil || ph.Warmup {
		return nil
	}
	var m vm.VM
	envs := map[time.Duration]*Env{}
	waiting := map[time.Duration]int64{} // requests that have waited a tick, per window
	for _, ru := range r.rules {
		th := ru.th
		if !th.Abort || ru.program == nil || (th.Target != "" && th.Target != c.Target.Name) || (th.Phase != "" && th.Phase != ph.Name) {
			continue
		}
		env, ok := envs[th.Window]
		if !ok {
			st := stats(th.Window)
			env = liveEnv(c, th.Phase, st)
			envs[th.Window], waiting[th.Window] = env, st.Waiting
		}
		if env.Requests == 0 && waiting[th.Window] == 0 {
			// Nothing completed and nothing has waited long: no evidence
			// yet. Requests that have waited a tick are evidence of their
			// latency even before they end (a frozen server).
			continue
		}
		got, err := m.Run(ru.program, env)
		if passed, isBool := got.(bool); err != nil || !isBool || passed {
			continue
		}
		name := th.Name
		if name == "" {
			name = th.Rule
		}
		return &results.Aborted{Case: c.ID, Phase: ph.Name, Name: name, Rule: th.Rule, At: elapsed, Window: th.Window,
			Actual: actualOf(&m, ru, env)}
	}
	return nil
}

// liveEnv is the environment of a rule evaluated while a phase runs; phase
// is the threshold's phase: ("" reads as "measured", as in Judge).
func liveEnv(c *scenarios.Case, phase string, st results.Stats) *Env {
	env := &Env{CaseMetrics: caseMetricsOf(st, nil), Phase: phase, Matrix: map[string]any{}}
	if env.Phase == "" {
		env.Phase = "measured"
	}
	if c != nil {
		env.Target = c.Target.Name
		for _, mv := range c.Matrix {
			env.Matrix[mv.Key] = mv.Value
		}
	}
	return env
}

// Decisive reports whether every rule calling regressed() that applies to
// phase ph is decisive on cases (their results so far, trials included):
// pass or regressed, or unable to become either with more trials (skipped
// for want of a baseline, an error). Only inconclusive verdicts ask for
// another trial. cases are those that ran ph, both targets of a same-job
// A/B among them.
func (r *Rules) Decisive(ph *scenarios.Phase, cases []*results.CaseResult, opts JudgeOptions) bool {
	if r == nil || ph == nil {
		return true
	}
	sub := &Rules{sc: r.sc}
	for _, ru := range r.rules {
		if ru.regressed && ru.program != nil && (ru.th.Phase == "" || ru.th.Phase == ph.Name) {
			sub.rules = append(sub.rules, ru)
		}
	}
	if len(sub.rules) == 0 {
		return true
	}
	for _, v := range sub.Judge(&results.ScenarioResult{Scenario: r.sc, Cases: cases}, opts) {
		if v.Status == results.StatusInconclusive {
			return false
		}
	}
	return true
}
