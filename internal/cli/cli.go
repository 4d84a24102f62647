// Package cli is loadgate's command line: it parses arguments, wires the
// pipeline (scenarios → runner → assertions → reporters) and maps every
// outcome to one of the documented exit codes. main only calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/loadgate/loadgate/internal/version"
	"github.com/loadgate/loadgate/reporters"
)

// Exit codes (SPEC §1). They are the only values Main returns.
const (
	ExitOK          = 0   // every fail-level threshold passed
	ExitFailed      = 1   // a threshold failed or a regression was found
	ExitUsage       = 2   // usage error or invalid scenario; nothing was sent
	ExitRun         = 3   // the run could not be carried out
	ExitInterrupted = 130 // SIGINT/SIGTERM; partial results were written
)

// Version is this binary's version (internal/version: the release stamp, else
// the build information), the one every output names.
var Version = version.String()

// Env is the process environment Main sees, injected so tests control it.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	LookupEnv      func(string) (string, bool)
	// Kill is closed by a second interrupt: servers under test are then
	// killed at once instead of being given their stop timeout. nil = never.
	Kill <-chan struct{}
}

// OSEnv is the real process environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, LookupEnv: os.LookupEnv}
}

// exitError carries an exit code out of a command together with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

const usage = `loadgate — load tests as code, judged in CI

Usage:
  loadgate run [flags] SCENARIO...     run scenarios (files, directories, globs)
  loadgate validate [flags] SCENARIO... parse and type-check, send no traffic
  loadgate serve [flags]               built-in target server for demos and tests
  loadgate demo [flags]                run the bundled demo against the built-in server
  loadgate compare [flags] BASE.json NEW.json
                                       side-by-side Markdown of two results with deltas and verdicts
  loadgate merge [flags] PART.json...  merge the segments of a distributed run (run --segment I/N), then judge
  loadgate report [flags] RESULTS.json...
                                       render HTML (default), Markdown or JUnit again from saved results
  loadgate history add|show|check|export --store DIR
                                       keep main's runs, find change points, gate on main's stable level
  loadgate init [flags]                write a first scenario and a GitHub Actions workflow that runs it
  loadgate import curl [flags] 'curl …'...
                                       turn curl command lines into a scenario
  loadgate schema                      print the scenario JSON Schema
  loadgate schema --results            print the JSON Schema of results.json
  loadgate version                     print the version

Run 'loadgate help COMMAND' or 'loadgate COMMAND --help' for a command's flags.
The flags of run, demo, merge and compare can also be set as LOADGATE_<NAME>
(--no-progress: LOADGATE_NO_PROGRESS=true); the command line wins.
Exit codes: 0 passed, 1 a threshold failed or a regression was found,
2 usage or scenario error, 3 the run could not be carried out, 130 interrupted.
`

// Main runs loadgate with args (without the program name) and returns the
// process exit code. Cancelling ctx is how SIGINT/SIGTERM reach it.
func Main(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	if cmd == "version" && len(rest) > 0 {
		return report(versionArgs(rest, env), env)
	}
	var err error
	switch cmd {
	case "run":
		err = runCommand(ctx, rest, env)
	case "validate":
		err = validateCommand(rest, env)
	case "serve":
		err = serveCommand(ctx, rest, env)
	case "demo":
		err = demoCommand(ctx, rest, env)
	case "compare":
		err = compareCommand(rest, env)
	case "merge":
		err = mergeCommand(ctx, rest, env)
	case "report":
		err = reportCommand(rest, env)
	case "schema":
		err = schemaCommand(rest, env)
	case "history":
		err = historyCommand(rest, env)
	case "init":
		err = initCommand(rest, env)
	case "import":
		err = importCommand(rest, env)
	case "version", "--version", "-version":
		fmt.Fprintf(env.Stdout, "loadgate %s\n", Version)
	case "help", "-h", "--help":
		return helpCommand(ctx, rest, env)
	default:
		fmt.Fprintf(env.Stderr, "loadgate: unknown command %q\n\n%s", cmd, usage)
		return ExitUsage
	}
	return report(err, env)
}

// commands are the names Main knows, for help COMMAND.
var commands = []string{"run", "validate", "serve", "demo", "compare", "merge", "report", "history", "init", "import", "schema", "version"}

// helpCommand prints the top-level help, or with a command name that
// command's help (as COMMAND --help does), on stdout.
func helpCommand(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || args[0] == "help" {
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	if len(args) > 1 || !slices.Contains(commands, args[0]) {
		fmt.Fprintf(env.Stderr, "loadgate help: unknown command %q\n\n%s", strings.Join(args, " "), usage)
		return ExitUsage
	}
	return Main(ctx, []string{args[0], "--help"}, env)
}

// versionArgs handles the arguments of version, which takes only --help.
func versionArgs(args []string, env Env) error {
	fs := newFlagSet("version", env, "version\n\nPrints loadgate's version.")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	return withCode(ExitUsage, fmt.Errorf("version takes no arguments, got %q", rest))
}

// report prints err (if any) and picks the exit code. Under GitHub
// Actions, every scenario diagnostic in err is also an error annotation.
func report(err error, env Env) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	code := ExitRun
	if errors.As(err, &ee) {
		code = ee.code
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(env.Stderr, "loadgate: %s\n", reporters.ConsoleText(strings.TrimSuffix(msg, "\n")))
	}
	githubFrom(env).annotateDiagnostics(env.Stderr, err)
	return code
}

// silent is an exitError without a message: the outcome was already shown.
func silent(code int) error { return &exitError{code: code, err: errors.New("")} }

// newLogger builds the stderr logger from --log-level and --log-format.
// The console format is coloured only when color is set (see logColor).
func newLogger(w io.Writer, level, format string, color bool) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Nop(), fmt.Errorf("--log-level %q: want trace, debug, info, warn or error", level)
	}
	switch format {
	case "json":
		return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), nil
	case "console":
		cw := zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05", NoColor: !color}
		return zerolog.New(cw).Level(lvl).With().Timestamp().Logger(), nil
	default:
		return zerolog.Nop(), fmt.Errorf("--log-format %q: want console or json", format)
	}
}

// logColor says whether console logs may carry ANSI colours: only on a
// terminal, where they are drawn rather than stored as "\x1b[90m" in a CI
// log, and never when NO_COLOR is set to anything (https://no-color.org).
func logColor(terminal bool, noColor string) bool {
	return terminal && noColor == ""
}
