package cli

import (
	"io"
	"os"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// redactor gathers the secrets of every plan: one run's outputs may hold
// text from any of its scenarios.
func redactor(plans []plan) scenarios.Redactor {
	var all []string
	for _, p := range plans {
		all = append(all, p.scenario.Secrets...)
	}
	return scenarios.NewRedactor(all...)
}

// redactEnv makes what a run prints to stdout and stderr (console lines,
// logs, error messages, --json -) go through the plans' redactor. Without
// secrets env is returned as it is, so a terminal stays a terminal.
func redactEnv(env Env, plans []plan) Env {
	red := redactor(plans)
	if len(red) == 0 {
		return env
	}
	env.Stdout = &redactingWriter{w: env.Stdout, red: red}
	env.Stderr = &redactingWriter{w: env.Stderr, red: red}
	return env
}

// redactingWriter redacts each Write on its own. The console and the
// logger write a line or a document at a time, so a secret is never cut
// in two between writes.
type redactingWriter struct {
	w   io.Writer
	red scenarios.Redactor
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.red.Redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap gives the writer underneath, for callers that ask whether the
// output is a terminal.
func (r *redactingWriter) Unwrap() io.Writer { return r.w }

// file returns the *os.File under w, if any, looking through redaction.
func file(w io.Writer) (*os.File, bool) {
	if r, ok := w.(*redactingWriter); ok {
		w = r.w
	}
	f, ok := w.(*os.File)
	return f, ok
}

// redactRun redacts the text of the results document that may quote a
// request: error messages and verdict reasons. Names and case IDs are left
// alone: they are the keys by which baselines and merge find cases, and
// validation keeps them to plain names.
func redactRun(run *results.Run, plans []plan) {
	red := redactor(plans)
	if len(red) == 0 {
		return
	}
	for _, sr := range run.Scenarios {
		sr.Error = red.Redact(sr.Error)
		sr.Description = red.Redact(sr.Description)
		for i := range sr.Verdicts {
			sr.Verdicts[i].Reason = red.Redact(sr.Verdicts[i].Reason)
		}
		for _, c := range sr.Cases {
			c.Error = red.Redact(c.Error)
			for i := range c.Verdicts {
				c.Verdicts[i].Reason = red.Redact(c.Verdicts[i].Reason)
			}
		}
	}
}
