package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// runOptions are the flags of run and demo.
type runOptions struct {
	out        string
	junit      string
	markdown   string
	html       string
	json       string
	vars       varFlag
	secretVars varFlag
	logLevel   string
	logFormat  string
	quiet      bool
	noProgress bool

	baseline           string // a results file or a directory of them
	strictEnv          bool
	failOnInconclusive bool

	segment segmentOptions // run only: distributed runs

	junitSourceAttrs bool // file/line attributes on JUnit testcases
}

// varFlag collects repeated --var K=V.
type varFlag map[string]string

func (v varFlag) String() string { return "" }

func (v varFlag) Set(s string) error {
	k, val, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want K=V, got %q", s)
	}
	v[k] = val
	return nil
}

// registerVars adds --var and --secret-var, shared by run, demo and validate.
func registerVars(fs *flag.FlagSet, vars, secretVars varFlag) {
	fs.Var(vars, "var", "set scenario variable `K=V` (repeatable; overrides LOADGATE_VAR_K and the file)")
	fs.Var(secretVars, "secret-var", "set scenario variable `K=V` and mark it secret: its value is redacted from every report, part, log and error (repeatable; overrides --var, LOADGATE_SECRET_VAR_K and the file)")
}

// envDefault returns the LOADGATE_* value of a flag, so that flags given on
// the command line still win over the environment.
func envDefault(env Env, name, def string) string {
	if v := env.Getenv("LOADGATE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))); v != "" {
		return v
	}
	return def
}

func envBool(env Env, name string) bool {
	b, _ := strconv.ParseBool(env.Getenv("LOADGATE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))))
	return b
}

func (o *runOptions) register(fs *flag.FlagSet, env Env) {
	o.vars, o.secretVars = varFlag{}, varFlag{}
	o.registerOutputs(fs, env)
	registerVars(fs, o.vars, o.secretVars)
	fs.StringVar(&o.logLevel, "log-level", envDefault(env, "log-level", "warn"), "log `level` on stderr: trace, debug, info, warn, error")
	fs.StringVar(&o.logFormat, "log-format", envDefault(env, "log-format", "console"), "log `format`: console or json")
	fs.BoolVar(&o.noProgress, "no-progress", envBool(env, "no-progress"), "no live progress lines")
	o.registerJudging(fs, env)
}

// registerOutputs adds the flags saying where reports go, shared by every
// command that writes them (run, demo, merge).
func (o *runOptions) registerOutputs(fs *flag.FlagSet, env Env) {
	out := envDefault(env, "out", "loadgate-results")
	fs.StringVar(&o.out, "out", out, "write results.json, junit.xml, summary.md and report.html into `DIR` (\"\" = none)")
	fs.StringVar(&o.out, "o", out, "shorthand for --out")
	fs.StringVar(&o.junit, "junit", envDefault(env, "junit", ""), "also write JUnit XML to `FILE` (- = stdout)")
	fs.BoolVar(&o.junitSourceAttrs, "junit-source-attrs", envBool(env, "junit-source-attrs"),
		"add file and line attributes (the scenario file, the threshold's line) to JUnit testcases, for reporters that read them; the strict Ant schema forbids them")
	fs.StringVar(&o.markdown, "markdown", envDefault(env, "markdown", ""), "also write Markdown to `FILE` (- = stdout)")
	fs.StringVar(&o.html, "html", envDefault(env, "html", ""), "also write the HTML report to `FILE` (- = stdout)")
	fs.StringVar(&o.json, "json", envDefault(env, "json", ""), "also write results JSON to `FILE` (- = stdout)")
	fs.BoolVar(&o.quiet, "quiet", envBool(env, "quiet"), "print only the verdict and failures")
}

// registerJudging adds the flags about baselines, shared by run and merge.
func (o *runOptions) registerJudging(fs *flag.FlagSet, env Env) {
	fs.StringVar(&o.baseline, "baseline", envDefault(env, "baseline", ""),
		"judge `baseline` and regressed() against this results.json, or a directory of them (the newest run with each case wins)")
	fs.BoolVar(&o.strictEnv, "strict-env", envBool(env, "strict-env"),
		"fail the run when the baseline was measured in a different environment (CPU, cores, OS, arch, runner, loadgate version)")
	fs.BoolVar(&o.failOnInconclusive, "fail-on-inconclusive", envBool(env, "fail-on-inconclusive"),
		"fail the run when a regressed() verdict is inconclusive (too few trials or too much spread to tell)")
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, as users of most CLIs expect.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: loadgate %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}
