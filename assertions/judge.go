package assertions

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// Reasons a verdict is skipped, for callers that tell them apart.
const (
	ReasonNoBaseline     = "no baseline loaded"
	ReasonNoBaselineCase = "no matching baseline case"
	ReasonNoPhase        = "no measured phase"
	// ReasonNoServer: the rule reads server.* or host.* and nothing was
	// sampled for the case, or it reads server.* and only the host was.
	ReasonNoServer = "no server was started or monitored"
	// ReasonNoBaselineServer: the same, of baseline.server or baseline.host.
	ReasonNoBaselineServer = "the baseline case has no server figures"
	// ReasonNoSample begins the reason of a rule reading server.* or
	// host.* on a case whose monitor could take no sample, followed by
	// why: "no sample of the server: process 4242 is gone".
	ReasonNoSample = "no sample of the server"
	// ReasonNoHostMemory: the rule reads server.rss_pct or
	// server.rss_max_pct and the host's RAM is unknown (not Linux).
	ReasonNoHostMemory = "the host's RAM is unknown, so memory has no share of it"
	// ReasonNoCost: the rule reads server.cpu_per_request and the case has
	// no such figure: no CPU sample of the server (it takes two samples,
	// a second apart), or no request succeeded while it was sampled.
	ReasonNoCost = "no CPU per request: the server's CPU was not sampled twice, or no request succeeded while it was"
	// ReasonNoHostFigures: the rule reads host.* and the server's figures
	// were read from Prometheus, which gives the server's own only.
	ReasonNoHostFigures = "the server's figures were read from Prometheus, which gives no host.* figures"
	// ReasonNoFlow: the rule reads iterations, iterations_rps or
	// iteration.*, which only a flow target measures.
	ReasonNoFlow = "target has no flow"
	// ReasonNoBaselineFlow: the same, of the baseline case.
	ReasonNoBaselineFlow = "the baseline case has no flow"
)

// JudgeOptions are what a judgement needs beyond the run itself.
type JudgeOptions struct {
	// Baseline is the earlier run that `baseline` and regressed() compare
	// with; nil when none is loaded, which skips the rules that need one
	// except on the cases of a target with baseline_target.
	Baseline Baseline
	// FailOnInconclusive makes inconclusive verdicts fail the run.
	FailOnInconclusive bool
}

// Judge evaluates every threshold on every case it applies to
// (Threshold.Target and Threshold.Phase narrow it), in case order, then
// threshold order. Only measured phases are seen: warm-up never enters a
// rule. A case whose measured phases completed no request is still judged,
// so `rps > 0` fails honestly instead of being skipped. A case whose
// figures describe the generator rather than the server
// (results.Invalidity) is not judged at all: every verdict is
// results.StatusNotJudged, saying why.
//
// A rule that reads baseline or calls regressed() compares with
// opts.Baseline, or, on a case whose target names a baseline_target
// (same-job A/B), with that target's case of the same matrix values in res
// itself, whether or not a baseline is loaded. It is skipped when there is
// nothing to compare with. A rule that reads server.* or host.* is skipped
// on a case whose server usage was not sampled. regressed() is true when
// the comparison is Regressed and false when it passes; when it is
// inconclusive the rule is evaluated both ways, and the verdict is
// results.StatusInconclusive if the outcome depends on it: `!regressed("rps", 5%)`
// is then inconclusive, `!regressed("rps", 5%) && p99 < 1ms` with a slow
// p99 still fails.
func (r *Rules) Judge(res *results.ScenarioResult, opts JudgeOptions) []results.Verdict {
	if r == nil || res == nil {
		return nil
	}
	scenario := ""
	if res.Scenario != nil {
		scenario = res.Scenario.Name
	}
	var out []results.Verdict
	var m vm.VM
	for _, c := range res.Cases {
		cj := &caseJudge{
			c: c, m: &m, opts: opts, scenario: scenario,
			envs: map[string]*Env{}, regress: map[string]*regressState{},
		}
		cj.shape = shapeOf(res.Scenario, c.ID)
		if cj.abTarget = baselineTargetOf(res.Scenario, c); cj.abTarget != "" {
			if cj.ref = referenceCase(res.Cases, c, cj.abTarget); cj.ref != nil {
				cj.refShape = shapeOf(res.Scenario, cj.ref.ID)
			}
		}
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
	c        *results.CaseResult
	m        *vm.VM
	opts     JudgeOptions
	scenario string
	envs     map[string]*Env          // by Threshold.Phase
	regress  map[string]*regressState // by Threshold.Phase; nil entry: no baseline case
	matrix   map[string]any
	// abTarget is the case's baseline_target, "" for none; ref is that
	// target's case with the same matrix values, nil when there is none.
	abTarget string
	ref      *results.CaseResult
	// shape is the case's load shape, refShape its reference case's; nil
	// when the scenario is not at hand.
	shape, refShape *scenarios.LoadShape
}

func (cj *caseJudge) judge(ru *rule) results.Verdict {
	th := ru.th
	v := results.Verdict{
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
	if ru.needsBaseline {
		v.BaselineTarget = cj.abTarget
	}

	phases := cj.c.Measured(th.Phase)
	if status, reason := cj.unjudgeable(ru, phases); status != "" {
		v.Status, v.Reason = status, reason
		return v
	}

	env := cj.env(th.Phase, phases, ru.byName)
	for _, name := range ru.requests {
		if _, ok := env.RequestsByName[name]; !ok {
			// The mix of another target: judging zeros would pass in silence.
			v.Status, v.Reason = results.StatusSkip, fmt.Sprintf("target %q has no request named %q", cj.c.Target, name)
			return v
		}
	}
	var rs *regressState
	if ru.needsBaseline {
		var reason string
		if rs, reason = cj.baselineFor(ru, env, th.Phase, phases); rs == nil {
			v.Status, v.Reason = results.StatusSkip, reason
			return v
		}
		rs.startRule()
	}
	if rs != nil && rs.undecided != "" && ru.baseFigures {
		v.Status, v.Reason = results.StatusInconclusive, rs.undecided
		v.Actual = cj.actual(ru, env)
		v.FailOnInconclusive = cj.opts.FailOnInconclusive
		return v
	}
	if rs != nil && len(rs.loadDiffs) > 0 && ru.baseFigures {
		// baseline.p99 of another load is no yardstick, and unlike a
		// regressed() judgement it cannot be tried both ways.
		v.Status, v.Reason = results.StatusIncomparable, cj.incomparableReason(rs.loadDiffs)
		v.Actual = cj.actual(ru, env)
		v.FailOnInconclusive = cj.opts.FailOnInconclusive
		return v
	}
	status, err := cj.evaluate(ru, env, rs)
	v.Status = status
	v.Actual = cj.actual(ru, env)
	if err != nil {
		v.Status, v.Reason = results.StatusError, runtimeMessage(err)
		return v
	}
	if rs != nil {
		cj.explainComparison(&v, rs)
	}
	if v.Status == results.StatusInconclusive || v.Status == results.StatusIncomparable {
		v.FailOnInconclusive = cj.opts.FailOnInconclusive
	}
	return v
}

// unjudgeable is the status and reason of a rule that cannot be judged on
// the case's phases, "" when it can be.
func (cj *caseJudge) unjudgeable(ru *rule, phases []*results.PhaseResult) (results.Status, string) {
	switch {
	case cj.c.Err != "":
		// Figures of a case that could not do its job (no request
		// succeeded, its server did not start) describe no server: a zero
		// p99 must not pass, and a skip would read as harmless.
		return results.StatusError, "case was not carried out: " + cj.c.Err
	case results.Invalidity(cj.c.Measured("")) != "":
		// A p99 of loadgate's own queue must neither pass nor fail.
		return results.StatusNotJudged, results.ReasonInvalid + results.Invalidity(cj.c.Measured(""))
	case len(phases) == 0 && ru.th.Phase != "":
		return results.StatusSkip, fmt.Sprintf("%s named %q", ReasonNoPhase, ru.th.Phase)
	case len(phases) == 0:
		return results.StatusSkip, ReasonNoPhase
	case usageGap(ru.usage.server, ru.usage.host, ru.usage.memPct, ru.usage.cost, cj.c.Server) != "":
		return results.StatusSkip, usageGap(ru.usage.server, ru.usage.host, ru.usage.memPct, ru.usage.cost, cj.c.Server)
	case serversGap(&ru.servers, cj.c) != "":
		return results.StatusSkip, serversGap(&ru.servers, cj.c)
	case ru.usage.flow && !hasFlow(phases):
		// Zero iterations would pass `iteration.p99 < 1s` in silence.
		return results.StatusSkip, ReasonNoFlow
	case ru.needsBaseline && cj.opts.Baseline == nil && cj.abTarget == "":
		return results.StatusSkip, ReasonNoBaseline
	}
	if ru.usage.capacity {
		if st := summarize(phases); capacitySkip(st, "") != "" {
			return results.StatusSkip, capacitySkip(st, "")
		}
	}
	return "", ""
}

// baselineFor is the comparison a rule reading the baseline makes for one
// phase narrowing; nil, with the reason to skip the rule, when there is
// nothing it can compare with.
func (cj *caseJudge) baselineFor(ru *rule, env *Env, phase string, phases []*results.PhaseResult) (*regressState, string) {
	rs := cj.withBaseline(env, phase, phases)
	switch {
	case rs == nil:
		return nil, cj.noBaselineReason(phase)
	case usageGap(ru.usage.baseServer, ru.usage.baseHost, ru.usage.baseMemPct, ru.usage.baseCost, rs.usage) != "":
		return nil, ReasonNoBaselineServer
	case ru.usage.baseFlow && !rs.flow:
		return nil, ReasonNoBaselineFlow
	case ru.usage.baseCapacity && capacitySkip(rs.stats, "the baseline's ") != "":
		return nil, capacitySkip(rs.stats, "the baseline's ")
	}
	return rs, ""
}

// explainComparison gives v, evaluated against rs, the judgements behind
// it. When the loads differ every comparison was left undecided: a rule
// that holds either way was judged on the case alone, and one that hangs
// on the comparison is incomparable.
func (cj *caseJudge) explainComparison(v *results.Verdict, rs *regressState) {
	if rs.undecided != "" && len(rs.loadDiffs) == 0 {
		if v.Status == results.StatusInconclusive {
			v.Reason = rs.undecided
		} else {
			v.Reason = "judged without the comparison, which does not decide it (" + rs.undecided + ")"
		}
		return
	}
	if len(rs.loadDiffs) > 0 {
		v.Reason = cj.incomparableReason(rs.loadDiffs)
		if v.Status == results.StatusInconclusive {
			v.Status = results.StatusIncomparable
		} else {
			v.Reason = "judged without the comparison, which does not decide it (" + v.Reason + ")"
		}
		return
	}
	var medians, reasons []string
	for _, j := range rs.judgements() {
		medians = append(medians, j.Medians())
		reasons = append(reasons, j.Reason)
	}
	v.Actual = strings.Join(append(nonEmpty(v.Actual), medians...), ", ")
	v.Reason = strings.Join(reasons, "; ")
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// maxUndecided bounds the inconclusive judgements one rule is tried with
// both ways: 2^n evaluations. Rules with more are simply inconclusive.
const maxUndecided = 6

// evaluate runs the rule. Without an inconclusive regressed() comparison
// that is one evaluation. Otherwise the rule is evaluated under every
// answer to the undecided comparisons (more may turn up in branches the
// first evaluation skipped); the status is pass or fail when every answer
// agrees, and inconclusive when the outcome hangs on what the trials could
// not decide.
func (cj *caseJudge) evaluate(ru *rule, env *Env, rs *regressState) (results.Status, error) {
	var undecided []regressKey
	for {
		seen := map[bool]bool{}
		grown := false
		for mask := 0; mask < 1<<len(undecided) && !grown; mask++ {
			if rs != nil {
				rs.force(undecided, mask)
			}
			got, err := cj.m.Run(ru.program, env)
			if err != nil {
				return results.StatusError, err
			}
			ok, isBool := got.(bool)
			if !isBool {
				return results.StatusError, fmt.Errorf("the rule gave %T, not true or false", got)
			}
			seen[ok] = true
			if rs == nil {
				continue
			}
			for _, k := range rs.found {
				if !slices.Contains(undecided, k) {
					undecided = append(undecided, k)
					grown = true
				}
			}
		}
		switch {
		case grown && len(undecided) > maxUndecided:
			return results.StatusInconclusive, nil
		case grown:
			continue
		case len(seen) == 2:
			return results.StatusInconclusive, nil
		case seen[true]:
			return results.StatusPass, nil
		default:
			return results.StatusFail, nil
		}
	}
}

// env builds (or reuses) the environment of one phase narrowing.
func (cj *caseJudge) env(phase string, phases []*results.PhaseResult, byName bool) *Env {
	e, ok := cj.envs[phase]
	if !ok {
		if cj.matrix == nil {
			cj.matrix = make(map[string]any, len(cj.c.Matrix))
			for _, mv := range cj.c.Matrix {
				cj.matrix[mv.Key] = mv.Value
			}
		}
		e = &Env{
			CaseMetrics: caseMetricsOf(summarize(phases), cj.c.Server),
			Phase:       phase,
			Target:      cj.c.Target,
			Matrix:      cj.matrix,
			Servers:     serversMetrics(cj.c),
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
				s, _ := results.SummarizeNamed(phases, n.Name)
				e.RequestsByName[n.Name] = metricsOf(s)
			}
		}
	}
	return e
}

// withBaseline gives env its baseline case, looked up once per phase
// narrowing; nil when there is no case to compare with.
func (cj *caseJudge) withBaseline(env *Env, phase string, phases []*results.PhaseResult) *regressState {
	rs, done := cj.regress[phase]
	if done {
		return rs
	}
	if bc, ok := cj.baselineCase(phase); ok {
		cm := caseMetricsOf(bc.Stats, bc.Server)
		env.Baseline = &cm
		rs = newRegressState(bc.Trials, results.TrialsOf(phases))
		rs.usage = bc.Server
		rs.flow = bc.Stats.Iterations != nil
		rs.stats = bc.Stats
		rs.loadDiffs = cj.loadDifferences(bc, phase)
		rs.undecided = bc.Undecided
		rs.baseRuns = bc.Runs
		env.Regressed = rs.regressed
	}
	cj.regress[phase] = rs
	return rs
}

// hasFlow reports whether phases ran a flow, whose iterations rules read.
func hasFlow(phases []*results.PhaseResult) bool {
	for _, p := range phases {
		if p.Iterations != nil {
			return true
		}
	}
	return false
}

// usageGap says why a rule reading server.* (server), host.* (host) or a
// share of the host's RAM (memPct) or the CPU per request (cost) cannot be
// judged on u, "" when it can.
// A Usage with PID 0 sampled only the host (unless read from Prometheus,
// which gives a server's figures and no host's), one with no sample measured
// nothing, and one whose process exited during the case measured only part
// of it: their zeros and partial figures must not pass for measurements.
func usageGap(server, host, memPct, cost bool, u *results.Usage) string {
	switch {
	case !server && !host:
		return ""
	case u == nil || (server && !u.OfServer()):
		return ReasonNoServer
	case u.Samples == 0:
		return ReasonNoSample + ": " + u.Reason
	case host && u.Prometheus != "":
		return ReasonNoHostFigures
	case server && u.Exited:
		return u.Reason + " during the case, so its figures cover only part of it"
	case memPct && u.HostMemTotal == 0:
		return ReasonNoHostMemory
	case cost && u.CPUPerRequestUS == nil:
		return ReasonNoCost
	}
	return ""
}

// actual lists the values the rule read, e.g. "p99 = 63.2ms, rps = 1234.5".
// A value that cannot be computed on its own (say p(200)) is left out: the
// verdict's Reason already says why the rule failed.
func (cj *caseJudge) actual(ru *rule, env *Env) string {
	return actualOf(cj.m, ru, env)
}

// actualOf is caseJudge.actual on machine m, for the hooks the engine
// calls while it runs.
func actualOf(m *vm.VM, ru *rule, env *Env) string {
	var parts []string
	for _, s := range ru.shown {
		got, err := m.Run(s.program, env)
		if err != nil {
			continue
		}
		if n, ok := got.(int64); ok && s.bytes {
			parts = append(parts, s.name+" = "+units.FormatSize(n))
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
