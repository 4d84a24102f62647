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
	// workers runs every phase on worker goroutines, never on the event loop.
	workers bool

	baseline           string // a results file or a directory of them
	baselineHistory    string // a history store (loadgate history add)
	strictEnv          bool
	failOnInconclusive bool

	segment   segmentOptions // run only: distributed runs
	selection caseSelection  // run only: --target and --case
	export    exportFlag     // run only: live figures out

	junitSourceAttrs bool // file/line attributes on JUnit testcases

	// announce names the command that ends by saying where its reports
	// went (demo, whose user did not choose a place); "" for none.
	announce string
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
	if v := env.Getenv(envName(name)); v != "" {
		return v
	}
	return def
}

// envBool is the LOADGATE_* default of a boolean flag. A value that does
// not parse reads as false here and is refused by parseInterleaved.
func envBool(env Env, name string) bool {
	b, _ := strconv.ParseBool(env.Getenv(envName(name)))
	return b
}

// envName is the environment variable of flag name: --no-progress is
// LOADGATE_NO_PROGRESS.
func envName(flagName string) string {
	return "LOADGATE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (o *runOptions) register(fs *flag.FlagSet, env Env) {
	o.vars, o.secretVars = varFlag{}, varFlag{}
	o.registerOutputs(fs, env)
	registerVars(fs, o.vars, o.secretVars)
	fs.StringVar(&o.logLevel, "log-level", envDefault(env, "log-level", "warn"), "log `level` on stderr: trace, debug, info, warn, error")
	fs.StringVar(&o.logFormat, "log-format", envDefault(env, "log-format", "console"), "log `format`: console or json")
	o.registerProgress(fs, env)
	fs.BoolVar(&o.workers, "workers", envBool(env, "workers"),
		"send every phase from a goroutine per connection instead of the event loops that most HTTP/1.1, h2c and TCP phases use: costlier per request, for comparison and troubleshooting")
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

// registerProgress adds --no-progress, shared by run, demo and merge, so a
// CI job can pass the same console flags to every command (merge itself
// shows no live progress).
func (o *runOptions) registerProgress(fs *flag.FlagSet, env Env) {
	fs.BoolVar(&o.noProgress, "no-progress", envBool(env, "no-progress"), "no live progress lines")
}

// registerJudging adds the flags about baselines, shared by run and merge.
func (o *runOptions) registerJudging(fs *flag.FlagSet, env Env) {
	fs.StringVar(&o.baseline, "baseline", envDefault(env, "baseline", ""),
		"judge baseline and regressed() against this results.json `FILE`, or a directory of them (the newest run with each case wins)")
	fs.StringVar(&o.baselineHistory, "baseline-history", envDefault(env, "baseline-history", ""),
		"judge baseline and regressed() against main's latest stable level in this history store `DIR` (loadgate history add): the pooled trials of up to 30 runs of the same case, environment and load")
	fs.BoolVar(&o.strictEnv, "strict-env", envBool(env, "strict-env"),
		"fail the run when the baseline was measured in a different environment (CPU, cores, OS, arch, runner, loadgate version)")
	fs.BoolVar(&o.failOnInconclusive, "fail-on-inconclusive", envBool(env, "fail-on-inconclusive"),
		"fail the run when a verdict comparing with a baseline is undecided: inconclusive (too few trials or too much spread to tell) or incomparable (the load changed since the baseline)")
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, as users of most CLIs expect. With -h or --help
// among them it prints the command's help on stdout and returns
// flag.ErrHelp. A LOADGATE_* variable behind a boolean flag that does not
// parse is an error (see checkEnvBools).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 || args[0] == "--" {
			if len(args) > 0 {
				positional = append(positional, args[1:]...)
			}
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	h, _ := fs.Lookup("help").Value.(*helpFlag)
	if h == nil {
		return positional, nil
	}
	if h.asked {
		h.show()
		return nil, flag.ErrHelp
	}
	if err := checkEnvBools(fs, h.getenv); err != nil {
		fmt.Fprintf(fs.Output(), "loadgate %s: %v\n", fs.Name(), err)
		return nil, err
	}
	return positional, nil
}

// helpFlag is -h and --help. It carries what parsing needs besides the
// arguments: where the help goes and the environment to check.
type helpFlag struct {
	asked  bool
	show   func()
	getenv func(string) string
}

func (h *helpFlag) String() string     { return "" }
func (h *helpFlag) IsBoolFlag() bool   { return true }
func (h *helpFlag) Set(v string) error { h.asked = v != "false"; return nil }

// newFlagSet makes a command's flag set. -h and --help print the help on
// stdout (exit 0: it was asked for); a wrong flag prints the problem and
// the help on stderr (exit 2). synopsis follows "Usage: loadgate "; text
// after a blank line in it is printed as a description.
func newFlagSet(name string, env Env, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() { writeHelp(env.Stderr, fs, synopsis) }
	h := &helpFlag{show: func() { writeHelp(env.Stdout, fs, synopsis) }, getenv: env.Getenv}
	if name == "serve" {
		h.getenv = nil // serve's flags have no LOADGATE_* equivalents
	}
	fs.Var(h, "help", "print this help")
	fs.Var(h, "h", "shorthand for --help")
	return fs
}

// checkEnvBools refuses a LOADGATE_* value behind a boolean flag that is
// not a boolean (LOADGATE_QUIET=maybe): read as false, it would silently
// undo what the user meant. It is checked even when the flag is given too.
func checkEnvBools(fs *flag.FlagSet, getenv func(string) string) error {
	if getenv == nil {
		return nil
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		if err != nil || !ok || !b.IsBoolFlag() || f.Name == "help" || f.Name == "h" {
			return
		}
		key := envName(f.Name)
		if v := getenv(key); v != "" {
			if _, perr := strconv.ParseBool(v); perr != nil {
				err = fmt.Errorf("%s=%q is not a boolean: want true or false (also 1, 0, t, f, TRUE, FALSE)", key, v)
			}
		}
	})
	return err
}

// writeHelp prints a command's usage and its flags, with two dashes as the
// docs write them and a shorthand beside its long form ("-o, --out DIR").
// A flag whose usage is "shorthand for --NAME" is that shorthand.
func writeHelp(w io.Writer, fs *flag.FlagSet, synopsis string) {
	synopsis, about, _ := strings.Cut(synopsis, "\n\n")
	fmt.Fprintf(w, "Usage: loadgate %s\n", synopsis)
	if about != "" {
		fmt.Fprintf(w, "\n%s\n", about)
	}
	short := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if long, ok := strings.CutPrefix(f.Usage, "shorthand for --"); ok {
			short[long] = f.Name
		}
	})
	fmt.Fprint(w, "\nFlags:\n")
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, "shorthand for --") {
			return
		}
		arg, usage := flag.UnquoteUsage(f)
		if _, isHelp := f.Value.(*helpFlag); isHelp {
			arg = ""
		}
		line := "  "
		if s := short[f.Name]; s != "" {
			line += "-" + s + ", "
		}
		line += "--" + f.Name
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintf(w, "%s\n        %s%s\n", line, strings.ReplaceAll(usage, "\n", "\n        "), defaultNote(f))
	})
}

// defaultNote is " (default X)" for a flag whose default is not its type's
// zero value; strings are quoted, as the flag package does.
func defaultNote(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return fmt.Sprintf(" (default %q)", f.DefValue)
		}
	}
	return " (default " + f.DefValue + ")"
}
