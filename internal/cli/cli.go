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
  loadgate schema                      print the scenario JSON Schema
  loadgate schema --results            print the JSON Schema of results.json
  loadgate version                     print the version

Run 'loadgate COMMAND -h' for a command's flags.
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
	case "version", "--version", "-version":
		fmt.Fprintf(env.Stdout, "loadgate %s\n", Version)
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
	default:
		fmt.Fprintf(env.Stderr, "loadgate: unknown command %q\n\n%s", cmd, usage)
		return ExitUsage
	}
	return report(err, env.Stderr)
}

// report prints err (if any) and picks the exit code.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	code := ExitRun
	if errors.As(err, &ee) {
		code = ee.code
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "loadgate: %s\n", reporters.ConsoleText(strings.TrimSuffix(msg, "\n")))
	}
	return code
}

// silent is an exitError without a message: the outcome was already shown.
func silent(code int) error { return &exitError{code: code, err: errors.New("")} }

// newLogger builds the stderr logger from --log-level and --log-format.
func newLogger(w io.Writer, level, format string) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Nop(), fmt.Errorf("--log-level %q: want trace, debug, info, warn or error", level)
	}
	switch format {
	case "json":
		return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), nil
	case "console":
		return zerolog.New(zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05"}).Level(lvl).With().Timestamp().Logger(), nil
	default:
		return zerolog.Nop(), fmt.Errorf("--log-format %q: want console or json", format)
	}
}
