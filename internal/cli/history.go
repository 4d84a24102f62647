package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/loadgate/loadgate/history"
	"github.com/loadgate/loadgate/history/changepoint"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

const historyUsage = `history SUBCOMMAND [flags]

The history of main's runs, one small file per run in a directory (a git branch, say):
  history add RESULTS.json... --store DIR   append runs, one new file per run and scenario
  history show --store DIR [--html F]       each series' segments and change points
  history check --store DIR                 exit 1 when the newest segment of a series regressed
  history export --store DIR --format F     csv, otava or bencher, for other trackers
Run 'loadgate history SUBCOMMAND --help' for its flags.`

func historyCommand(args []string, env Env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs := newFlagSet("history", env, historyUsage)
		rest, err := parseInterleaved(fs, args)
		if err != nil {
			return silentUsage(err)
		}
		if len(rest) == 0 {
			fs.Usage()
			return withCode(ExitUsage, errors.New("history: no subcommand given (add, show, check, export)"))
		}
		args = rest
	}
	switch args[0] {
	case "add":
		return historyAdd(args[1:], env)
	case "show":
		return historyShow(args[1:], env)
	case "check":
		return historyCheck(args[1:], env)
	case "export":
		return historyExport(args[1:], env)
	}
	return withCode(ExitUsage, fmt.Errorf("history: unknown subcommand %q (add, show, check, export)", args[0]))
}

func historyAdd(args []string, env Env) error {
	fs := newFlagSet("history add", env, "history add RESULTS.json... --store DIR [flags]\n\nAppends each run to the store: one new file per scenario, never a rewrite.\nInterrupted, aborted, invalid and failed-to-run results are refused (exit 3).")
	store := fs.String("store", envDefault(env, "history_store", ""), "the history store `DIR` (created if missing)")
	var o history.Origin
	fs.StringVar(&o.Commit, "commit", "", "the commit measured (default: GITHUB_SHA, else the results' commit)")
	fs.StringVar(&o.Parent, "parent", "", "its first parent (default: git rev-parse COMMIT^ where that works)")
	fs.StringVar(&o.Branch, "branch", "", "the branch (default: GITHUB_REF_NAME)")
	fs.StringVar(&o.RunURL, "run-url", "", "the CI run's URL (default: from GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_RUN_ID)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if *store == "" || len(files) == 0 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("history add: want RESULTS.json and --store DIR"))
	}
	for _, f := range files {
		run, err := results.ReadRunFile(f)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		entries, err := history.EntriesOf(run, originOf(o, run, env))
		if err != nil {
			return withCode(ExitRun, fmt.Errorf("%s: %w", f, err))
		}
		for _, e := range entries {
			path, err := history.Add(*store, e)
			if err != nil {
				return withCode(ExitRun, err)
			}
			fmt.Fprintln(env.Stdout, path)
		}
	}
	return nil
}

// originOf fills what the flags left out from the CI's variables and git.
func originOf(o history.Origin, run *results.Run, env Env) history.Origin {
	if o.Commit == "" {
		o.Commit = env.Getenv("GITHUB_SHA")
	}
	if o.Commit == "" {
		o.Commit = run.Commit
	}
	if o.Branch == "" {
		o.Branch = env.Getenv("GITHUB_REF_NAME")
	}
	if o.RunURL == "" {
		server, repo, id := env.Getenv("GITHUB_SERVER_URL"), env.Getenv("GITHUB_REPOSITORY"), env.Getenv("GITHUB_RUN_ID")
		if server != "" && repo != "" && id != "" {
			o.RunURL = server + "/" + repo + "/actions/runs/" + id
		}
	}
	if o.Parent == "" && o.Commit != "" {
		if out, err := exec.Command("git", "rev-parse", "--verify", "--quiet", o.Commit+"^").Output(); err == nil {
			o.Parent = strings.TrimSpace(string(out))
		}
	}
	return o
}

// historyQuery is the flags that pick and cut the series.
type historyQuery struct {
	store  string
	filter history.Filter
	opts   changepoint.Options
	minMag toleranceFlag
}

func (q *historyQuery) register(fs *flag.FlagSet, env Env) {
	fs.StringVar(&q.store, "store", envDefault(env, "history_store", ""), "the history store `DIR`")
	fs.StringVar(&q.filter.Scenario, "scenario", "", "only the scenario named `NAME`")
	fs.StringVar(&q.filter.Case, "case", "", "only the case with this `ID`")
	fs.StringVar(&q.filter.Metric, "metric", "", "only this metric: "+strings.Join(history.MetricNames(), ", "))
	fs.IntVar(&q.opts.Window, "window", 50, "runs per window of the change-point search")
	fs.Float64Var(&q.opts.PValue, "p-value", 0.001, "the significance a change point needs (t-test)")
	fs.Var(&q.minMag, "min-magnitude", "report only change points that move the level by more than this, e.g. `2%`")
}

// analyses loads the store and cuts every series it selects.
func (q *historyQuery) analyses() ([]*history.Analysis, []*history.Series, error) {
	if q.store == "" {
		return nil, nil, withCode(ExitUsage, errors.New("history: no --store DIR given"))
	}
	if q.opts.Window < 6 {
		return nil, nil, withCode(ExitUsage, fmt.Errorf("history: --window %d: want at least 6 runs", q.opts.Window))
	}
	if !(q.opts.PValue > 0 && q.opts.PValue < 1) {
		return nil, nil, withCode(ExitUsage, fmt.Errorf("history: --p-value %v: want a probability between 0 and 1", q.opts.PValue))
	}
	q.opts.MinMagnitude = float64(q.minMag)
	entries, err := history.Load(q.store, q.filter.Scenario)
	if err != nil {
		return nil, nil, withCode(ExitUsage, err)
	}
	series := history.BuildSeries(entries, q.filter)
	as := make([]*history.Analysis, len(series))
	for i, s := range series {
		as[i] = history.Analyze(s, q.opts)
	}
	return as, series, nil
}

func historyShow(args []string, env Env) error {
	var q historyQuery
	fs := newFlagSet("history show", env, "history show --store DIR [flags]\n\nPrints each series (case × metric × environment × load): its segments and its change points\n(E-divisive means with a t-test), with the commits between which each happened.")
	q.register(fs, env)
	htmlOut := fs.String("html", "", "also draw every series into this HTML `FILE`")
	commitURL := fs.String("commit-url", "", "link commits in the HTML to this `URL` with {sha} in it (default: GitHub's, from GITHUB_SERVER_URL and GITHUB_REPOSITORY)")
	if rest, err := parseInterleaved(fs, args); err != nil {
		return silentUsage(err)
	} else if len(rest) > 0 {
		return withCode(ExitUsage, fmt.Errorf("history show: unexpected argument %q", rest[0]))
	}
	as, _, err := q.analyses()
	if err != nil {
		return err
	}
	if len(as) == 0 {
		fmt.Fprintf(env.Stdout, "history %s: no runs%s\n", q.store, describeFilter(q.filter))
		return nil
	}
	ro := reporters.HistoryOptions{Options: q.opts, Commits: gitCommitsBetween, CommitURL: commitLinker(*commitURL, env)}
	if err := reporters.WriteHistory(env.Stdout, as, ro); err != nil {
		return withCode(ExitRun, err)
	}
	if *htmlOut != "" {
		if err := writeTo(*htmlOut, io.Discard, func(w io.Writer) error { return reporters.WriteHistoryHTML(w, as, ro) }); err != nil {
			return withCode(ExitRun, err)
		}
		fmt.Fprintf(env.Stdout, "history: charts in %s\n", absPath(*htmlOut))
	}
	return nil
}

// describeFilter is " of scenario "x", metric p99" for a narrowed query.
func describeFilter(f history.Filter) string {
	var parts []string
	for _, p := range [][2]string{{"scenario", f.Scenario}, {"case", f.Case}, {"metric", f.Metric}} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+strconv.Quote(p[1]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " of " + strings.Join(parts, ", ")
}

func historyCheck(args []string, env Env) error {
	var q historyQuery
	tol := toleranceFlag(0.05)
	fs := newFlagSet("history check", env, "history check --store DIR [flags]\n\nExits 1 when the newest segment of any series is worse than the one before it by more than\n--tolerance, naming the series, the change and the commits between which it happened.")
	q.register(fs, env)
	fs.Var(&tol, "tolerance", "how much worse the newest level may be before it fails, e.g. `5%`")
	if rest, err := parseInterleaved(fs, args); err != nil {
		return silentUsage(err)
	} else if len(rest) > 0 {
		return withCode(ExitUsage, fmt.Errorf("history check: unexpected argument %q", rest[0]))
	}
	as, _, err := q.analyses()
	if err != nil {
		return err
	}
	regs := history.Check(as, float64(tol))
	for _, r := range regs {
		fmt.Fprintln(env.Stdout, regressionLine(r))
	}
	fmt.Fprintf(env.Stdout, "history check: %d series, %d regressed beyond %s\n", len(as), len(regs), tol.String())
	if len(regs) > 0 {
		return silent(ExitFailed)
	}
	return nil
}

func historyExport(args []string, env Env) error {
	var q historyQuery
	fs := newFlagSet("history export", env, "history export --store DIR --format csv|otava|bencher [flags]")
	q.register(fs, env)
	format := fs.String("format", "csv", "csv (one row per run and series), otava (Apache Otava's CSV) or bencher (Bencher Metric Format JSON)")
	out := fs.String("out", "", "write to `FILE` instead of stdout")
	if rest, err := parseInterleaved(fs, args); err != nil {
		return silentUsage(err)
	} else if len(rest) > 0 {
		return withCode(ExitUsage, fmt.Errorf("history export: unexpected argument %q", rest[0]))
	}
	_, series, err := q.analyses()
	if err != nil {
		return err
	}
	if err := writeTo(*out, env.Stdout, func(w io.Writer) error { return reporters.WriteHistoryExport(w, series, *format) }); err != nil {
		return withCode(ExitUsage, err)
	}
	return nil
}

// gitCommitsBetween counts the commits in (good, first] with the git of
// the working directory; ok is false where it does not know them.
func gitCommitsBetween(good, first *history.Entry) (int, bool) {
	if good.Commit == "" || first.Commit == "" {
		return 0, false
	}
	out, err := exec.Command("git", "rev-list", "--count", good.Commit+".."+first.Commit).Output()
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	return n, err == nil
}

// commitLinker turns a commit into its page: template with {sha}, else
// GitHub's when the CI says which repository this is; nil for no links.
func commitLinker(template string, env Env) func(string) string {
	if template == "" {
		server, repo := env.Getenv("GITHUB_SERVER_URL"), env.Getenv("GITHUB_REPOSITORY")
		if server == "" || repo == "" {
			return nil
		}
		template = server + "/" + repo + "/commit/{sha}"
	}
	return func(sha string) string { return strings.ReplaceAll(template, "{sha}", sha) }
}

// regressionLine names a regression of history check in one line:
// series, magnitude, levels, p-value and the commits between.
func regressionLine(r history.Regression) string {
	k, ch, info := r.Analysis.Series.Key, r.Change, r.Analysis.Series.Info
	span := fmt.Sprintf("between %s (good) and %s (first worse)", history.ShortCommit(ch.Good.Commit), history.ShortCommit(ch.FirstChanged.Commit))
	if n, ok := gitCommitsBetween(ch.Good, ch.FirstChanged); ok {
		span += fmt.Sprintf(", %d commits", n)
	} else if ch.FirstChanged.Parent != "" && ch.FirstChanged.Parent == ch.Good.Commit {
		span += ", 1 commit"
	}
	return fmt.Sprintf("REGRESSED %s / %s / %s [env %s]: %+.1f%% (%s → %s, p = %.2g), %s",
		k.Scenario, k.Case, k.Metric, k.Env, ch.Magnitude*100, info.Format(ch.Before), info.Format(ch.After), ch.PValue, span)
}

// historyBaseline reads the store at dir as the baseline of a run on
// this host, comparing each case of scs with main's runs of its load.
func historyBaseline(dir string, meta *results.Meta, scs []*scenarios.Scenario) (*history.Baseline, error) {
	entries, err := history.Load(dir, "")
	if err != nil {
		return nil, err
	}
	loads := map[[2]string]string{}
	for _, sc := range scs {
		for _, c := range sc.Cases {
			if shape := results.LoadShapeOf(sc, c.ID); shape != nil {
				loads[[2]string{sc.Name, c.ID}] = shape.Digest()
			}
		}
	}
	env := history.EnvironmentOf(&results.Run{Host: meta.Host, LoadgateVersion: meta.Version})
	return history.NewBaseline(dir, entries, env, changepoint.Options{},
		func(scenario, caseID string) string { return loads[[2]string{scenario, caseID}] }), nil
}

func plansScenarios(plans []plan) []*scenarios.Scenario {
	out := make([]*scenarios.Scenario, len(plans))
	for i, p := range plans {
		out[i] = p.scenario
	}
	return out
}
