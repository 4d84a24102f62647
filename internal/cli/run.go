package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/exporters"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

func runCommand(ctx context.Context, args []string, env Env) error {
	var opts runOptions
	fs := newFlagSet("run", env, "run [flags] SCENARIO...")
	opts.register(fs, env)
	opts.segment.register(fs, env)
	opts.selection.register(fs, env)
	opts.export.register(fs, env)
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if err := opts.export.resolve(); err != nil {
		return withCode(ExitUsage, err)
	}
	if err := opts.segment.parse(time.Now()); err != nil {
		return withCode(ExitUsage, err)
	}
	if len(files) == 0 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("run: no scenario given"))
	}
	plans, err := loadPlans(files, opts.vars, opts.secretVars, env)
	if err != nil {
		return err
	}
	return execute(ctx, plans, opts, env)
}

// silentUsage maps a flag parse error to exit 2; the flag package already
// printed it (or the help that -h asked for).
func silentUsage(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return silent(ExitOK)
	}
	return silent(ExitUsage)
}

// plan is a scenario ready to run: parsed, validated, rules compiled.
type plan struct {
	scenario *scenarios.Scenario
	rules    *assertions.Rules
}

// loadPlans parses every scenario and compiles every rule before any
// traffic is sent, so a typo in the last file cannot waste a long run.
func loadPlans(args []string, vars, secretVars map[string]string, env Env) ([]plan, error) {
	files, err := scenarios.Expand(args)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	var problems loadProblems
	var plans []plan
	names := map[string]string{}
	for _, f := range files {
		sc, err := scenarios.Load(f, scenarios.LoadOptions{Vars: vars, SecretVars: secretVars, LookupEnv: env.LookupEnv})
		if err != nil {
			problems = append(problems, err)
			continue
		}
		p, err := compilePlan(sc)
		if err != nil {
			problems = append(problems, redactDiagnostics(sc, err))
			continue
		}
		if prev, dup := names[sc.Name]; dup {
			problems = append(problems, scenarios.Errorf(sc.Pos, "scenario name %q is already used by %s", sc.Name, prev))
			continue
		}
		names[sc.Name] = f
		plans = append(plans, p)
	}
	if len(problems) > 0 {
		return nil, withCode(ExitUsage, problems)
	}
	return plans, nil
}

// loadProblems are the problems found loading scenario files, one per
// file: its diagnostics (a scenarios.ErrorList) or why it could not be
// read. Every one is printed, and annotated under GitHub Actions.
type loadProblems []error

func (l loadProblems) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (l loadProblems) Unwrap() []error { return l }

// redactDiagnostics hides the scenario's secrets in the messages of err,
// keeping each diagnostic's position.
func redactDiagnostics(sc *scenarios.Scenario, err error) error {
	var list scenarios.ErrorList
	if !errors.As(err, &list) {
		return errors.New(sc.Redact(err.Error()))
	}
	out := make(scenarios.ErrorList, len(list))
	for i, e := range list {
		out[i] = &scenarios.Error{Pos: e.Pos, Msg: sc.Redact(e.Msg)}
	}
	return out
}

func compilePlan(sc *scenarios.Scenario) (plan, error) {
	rules, err := assertions.Compile(sc)
	if err != nil {
		return plan{}, err
	}
	return plan{scenario: sc, rules: rules}, nil
}

// execute runs the plans, judges them, writes every report and picks the
// exit code. Reports are written even when the run was interrupted or failed
// part-way, so nothing measured is lost.
func execute(ctx context.Context, plans []plan, opts runOptions, env Env) error {
	env = redactEnv(env, plans)
	log, err := newLogger(env.Stderr, opts.logLevel, opts.logFormat, logColor(isTTY(env.Stderr), env.Getenv("NO_COLOR")))
	if err != nil {
		return withCode(ExitUsage, err)
	}
	human, err := opts.humanOutput(env)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	gh := githubFrom(env)
	sched := opts.segment.schedule()
	plans, empty, err := narrowPlans(plans, opts.selection, sched.seg, human)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	console := reporters.NewConsole(human, reporters.ConsoleOptions{
		TTY:        isTTY(human) && !opts.noProgress,
		Quiet:      opts.quiet,
		NoProgress: opts.noProgress,
		Now:        time.Now,
	})
	meta := results.Meta{Version: Version, Commit: gitCommit(env), Host: results.HostInfo(), StrictEnv: opts.strictEnv}
	// Read before any traffic: a wrong path must not cost a whole run.
	judgeOpts, err := opts.judging(&meta, plansScenarios(plans))
	if err != nil {
		return err
	}
	if err := checkBeforeSending(opts, gh, plans, empty); err != nil {
		return withCode(ExitRun, fmt.Errorf("%w (nothing was sent)", err))
	}
	exp, err := openExports(opts.export.specs)
	if err != nil {
		return withCode(ExitRun, fmt.Errorf("--export: %w (nothing was sent)", err))
	}
	baselineInfo := results.BaselineInfoFor(meta.Baseline, meta.Host, meta.Version, meta.StrictEnv)
	console.BaselineNote(baselineInfo)
	var skew time.Duration
	if slices.Contains(empty, false) {
		skew = sched.await(ctx, human)
	}
	meta.Start = time.Now()
	pr := planRunner{log: log, console: console, gh: gh, human: human, stderr: env.Stderr,
		judge: judgeOpts, sched: sched, logDir: logDir(opts.out), kill: env.Kill, workers: opts.workers, export: exp}
	inputs, runFailed := pr.runAll(ctx, plans, empty)
	closeExports(exp, log)
	if baselineInfo != nil && !baselineInfo.FingerprintMatch {
		console.BaselineNote(baselineInfo)
	}
	if err := console.Err(); err != nil {
		log.Warn().Err(err).Msg("console output failed")
	}
	meta.End = time.Now()
	meta.Interrupted = ctx.Err() != nil
	run := results.NewRun(meta, inputs)
	sched.markPart(run, plans, empty, skew)
	redactRun(run, plans)
	if !sched.split() {
		console.Headline(run)
	}
	err = finish(run, opts, env.Stdout, human, gh, runFailed, sched.split())
	if reason := aborted(inputs); err == nil && reason != "" && !sched.split() {
		// The failing rule's verdict may pass over the phase as a whole:
		// a run stopped early still fails.
		return withCode(ExitFailed, errors.New("stopped early: "+reason))
	}
	return err
}

// narrowPlans keeps the cases that --target and --case select and gives
// each plan its segment's share, printing what was left out and why;
// empty[i] is true when plans[i] has nothing left to send.
func narrowPlans(plans []plan, sel caseSelection, seg scenarios.Segment, human io.Writer) (kept []plan, empty []bool, err error) {
	plans, notes, err := sel.apply(plans)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range notes {
		fmt.Fprintln(human, "loadgate: "+n)
	}
	empty = make([]bool, len(plans))
	for i := range plans {
		if plans[i], empty[i], notes, err = splitPlan(plans[i], seg); err != nil {
			return nil, nil, err
		}
		for _, n := range notes {
			fmt.Fprintln(human, "loadgate: "+n)
		}
	}
	return plans, empty, nil
}

// judging reads the --baseline run or the --baseline-history store, if
// any, into meta and into the options every rule is judged with. scs are
// the scenarios judged, whose loads pick the history they compare with.
func (o runOptions) judging(meta *results.Meta, scs []*scenarios.Scenario) (assertions.JudgeOptions, error) {
	judge := assertions.JudgeOptions{FailOnInconclusive: o.failOnInconclusive}
	switch {
	case o.baseline != "" && o.baselineHistory != "":
		return judge, withCode(ExitUsage, errors.New("--baseline and --baseline-history both given: a run is judged against one of them"))
	case o.baselineHistory != "":
		bl, err := historyBaseline(o.baselineHistory, meta, scs)
		if err != nil {
			return judge, withCode(ExitUsage, fmt.Errorf("--baseline-history: %w", err))
		}
		meta.Baseline, judge.Baseline = bl, bl
	case o.baseline != "":
		bl, err := results.LoadBaseline(o.baseline)
		if err != nil {
			return judge, withCode(ExitUsage, fmt.Errorf("--baseline: %w", err))
		}
		meta.Baseline, judge.Baseline = bl, bl
	}
	return judge, nil
}

// checkBeforeSending refuses a run whose reports could not be written or
// whose monitored servers are gone, before it costs any load.
func checkBeforeSending(opts runOptions, gh github, plans []plan, empty []bool) error {
	if err := opts.checkOutputs(gh); err != nil {
		return err
	}
	return checkMonitors(plans, empty)
}

// finish is the one ending of run and merge: write every report, annotate
// the run for GitHub, and pick the exit code. An interrupted run exits 130,
// and one that could not be carried out or is invalid (its figures describe
// the generator) 3, whatever its verdicts; a segment part (part) is judged
// later, by merge, so it passes here unless it is invalid, which merge
// would refuse.
func finish(run *results.Run, opts runOptions, stdout, human io.Writer, gh github, runFailed, part bool) error {
	if err := writeOutputs(run, opts, stdout); err != nil {
		return withCode(ExitRun, err)
	}
	gh.annotate(human, run)
	if err := gh.writeSummary(run); err != nil {
		return withCode(ExitRun, err)
	}
	if opts.announce != "" {
		fmt.Fprintln(human, opts.outputsLine())
	}
	switch {
	case run.Interrupted:
		return withCode(ExitInterrupted, errors.New("interrupted: partial results written"))
	case runFailed:
		return silent(ExitRun)
	case run.Invalid():
		return withCode(ExitRun, invalidError(run))
	case part:
		return nil
	}
	return judged(run)
}

// checkMonitors refuses a run whose monitored processes are gone, before
// the first scenario sends any load: its server.* figures would be no
// measurements, and a later scenario's must not cost the earlier ones.
func checkMonitors(plans []plan, empty []bool) error {
	for i, p := range plans {
		if empty[i] {
			continue
		}
		if err := sut.CheckMonitors(p.scenario); err != nil {
			return fmt.Errorf("%s: %w", p.scenario.Name, err)
		}
	}
	return nil
}

// planRunner runs one scenario of a run and shows its summary.
type planRunner struct {
	log           zerolog.Logger
	console       *reporters.Console
	gh            github
	human, stderr io.Writer
	judge         assertions.JudgeOptions
	sched         schedule
	logDir        string
	kill          <-chan struct{}     // a second interrupt: kill servers at once
	workers       bool                // no event loop (--workers)
	export        *exporters.Exporter // --export; nil for none
}

// run runs p, judges it (a segment part keeps no verdicts) and prints its
// summary; failed is true when the run could not be carried out.
func (r planRunner) run(ctx context.Context, p plan) (in results.ScenarioInput, failed bool) {
	var observer runner.Observer = r.console
	if r.export != nil {
		observer = observers{r.console, r.export.Scenario(p.scenario)}
	}
	res, err := runner.Run(ctx, p.scenario, runner.Config{Logger: r.log, Observer: observer, LogDir: r.logDir, Kill: r.kill, Workers: r.workers,
		Judge: runner.Judge(p.rules.Hooks(r.judge))})
	in = results.ScenarioInput{Result: res, Err: err, Scenario: p.scenario}
	if res != nil {
		verdicts := p.rules.Judge(res, r.judge)
		endGroup := r.gh.group(r.human, "loadgate: "+p.scenario.Name)
		r.console.Summary(res, verdicts)
		endGroup()
		if r.sched.split() {
			// A share of the load cannot pass or fail the whole
			// test's thresholds: the part keeps no verdicts.
			fmt.Fprintf(r.human, "segment %s: thresholds are judged by loadgate merge; the verdicts above cover this segment's share only\n\n", r.sched.seg)
		} else {
			in.Verdicts = verdicts
		}
		for _, c := range res.Cases {
			stopped := abortedPhases(c)
			for _, a := range stopped {
				fmt.Fprintln(r.stderr, reporters.ConsoleText("loadgate: "+abortLine(p.scenario.Name, a)))
			}
			// A case an abort rule stopped failed its rule, not its run:
			// exit 1 like any failing rule, not 3.
			if c.Err != "" && len(stopped) == 0 {
				failed = true
				fmt.Fprintln(r.stderr, reporters.ConsoleText(fmt.Sprintf("loadgate: %s: case %q: %s", p.scenario.Name, c.ID, c.Err)))
			}
		}
	}
	if err != nil {
		failed = true
		fmt.Fprintln(r.stderr, reporters.ConsoleText(fmt.Sprintf("loadgate: %s: %v", p.scenario.Name, err)))
	}
	return in, failed
}

// runAll runs the plans in order until ctx is done. A plan with nothing
// to send keeps its place in the results, with no time in it, so that a
// segment part still says so for each scenario (markPart).
func (r planRunner) runAll(ctx context.Context, plans []plan, empty []bool) (inputs []results.ScenarioInput, failed bool) {
	for i, p := range plans {
		if ctx.Err() != nil {
			break
		}
		if empty[i] {
			now := time.Now()
			res := &results.ScenarioResult{Scenario: p.scenario, Start: now, End: now}
			inputs = append(inputs, results.ScenarioInput{Result: res, Scenario: p.scenario})
			continue
		}
		in, f := r.run(ctx, p)
		failed = failed || f
		inputs = append(inputs, in)
	}
	return inputs, failed
}

// abortedPhases lists what stopped c's phases early: abort rules.
func abortedPhases(c *results.CaseResult) []*results.Aborted {
	var out []*results.Aborted
	for _, ph := range c.Phases {
		if ph.Aborted != nil {
			out = append(out, ph.Aborted)
		}
	}
	return out
}

// abortLine is the line the command prints for an abort in scenario:
// the reports' sentence of where and why it stopped.
func abortLine(scenario string, a *results.Aborted) string {
	return scenario + ": aborted " + reporters.AbortReason(a)
}

// aborted is the first reason an abort rule stopped the run, "" for none.
func aborted(inputs []results.ScenarioInput) string {
	for _, in := range inputs {
		if in.Result == nil || in.Scenario == nil {
			continue
		}
		for _, c := range in.Result.Cases {
			if a := abortedPhases(c); len(a) > 0 {
				return abortLine(in.Scenario.Name, a[0])
			}
		}
	}
	return ""
}

// judged is the exit of a run that was carried out: 1 when its verdicts
// or its baseline's environment fail it.
func judged(run *results.Run) error {
	switch {
	case run.Baseline.EnvFailed():
		return withCode(ExitFailed, fmt.Errorf("--strict-env: the baseline %s was measured in a different environment (%s)",
			run.Baseline.File, strings.Join(run.Baseline.Differences, "; ")))
	case !run.Passed:
		return silent(ExitFailed)
	}
	return nil
}

func isTTY(w io.Writer) bool {
	f, ok := file(w)
	return ok && reporters.TTY(f)
}

// gitCommit names the code under test: GitHub's GITHUB_SHA, else the
// working directory's HEAD, else nothing.
func gitCommit(env Env) string {
	if sha := env.Getenv("GITHUB_SHA"); sha != "" {
		return sha
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// logDir is where servers under test write their logs: the output
// directory, created if needed; "" (logs kept only as a tail) without one.
func logDir(out string) string {
	if out == "" || os.MkdirAll(out, 0o755) != nil {
		return ""
	}
	return out
}

// invalidError says why an invalid run was not judged, in one line.
func invalidError(run *results.Run) error {
	return fmt.Errorf("invalid run — not judged: %s", run.InvalidReason())
}
