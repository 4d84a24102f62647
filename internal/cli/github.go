package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// GitHub Actions integration (SPEC §5): with GITHUB_ACTIONS=true the
// Markdown summary is appended to $GITHUB_STEP_SUMMARY and the run's
// annotations (reporters.WriteAnnotations) are printed.

// stepSummaryLimit keeps the appended summary under GitHub's 1 MiB cap for a
// step summary, leaving room for what other steps write.
const stepSummaryLimit = 900 << 10

type github struct {
	enabled   bool
	summary   string // $GITHUB_STEP_SUMMARY path, "" = none
	workspace string // $GITHUB_WORKSPACE, the repository's checkout
}

func githubFrom(env Env) github {
	return github{enabled: env.Getenv("GITHUB_ACTIONS") == "true", summary: env.Getenv("GITHUB_STEP_SUMMARY"),
		workspace: env.Getenv("GITHUB_WORKSPACE")}
}

// group opens a collapsible log section; the returned func closes it.
func (g github) group(w io.Writer, title string) func() {
	if !g.enabled {
		return func() {}
	}
	return reporters.GitHubGroup(w, title)
}

// annotate prints the run's annotations when running under Actions.
func (g github) annotate(w io.Writer, run *results.Run) {
	if g.enabled {
		reporters.WriteAnnotations(w, run, g.path)
	}
}

// writeSummary appends the Markdown report to the step summary file.
func (g github) writeSummary(run *results.Run) error {
	if !g.enabled || g.summary == "" {
		return nil
	}
	var b bytes.Buffer
	if err := reporters.WriteMarkdown(&b, run); err != nil {
		return err
	}
	md := b.Bytes()
	if len(md) > stepSummaryLimit {
		cut := bytes.LastIndexByte(md[:stepSummaryLimit], '\n')
		md = append(md[:cut+1:cut+1], []byte("\n_Summary truncated to fit GitHub's step summary limit; see summary.md in the results._\n")...)
	}
	f, err := os.OpenFile(g.summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	if _, err := f.Write(md); err != nil {
		f.Close()
		return fmt.Errorf("step summary: %w", err)
	}
	return f.Close()
}

// annotateDiagnostics prints an error annotation for every scenario
// diagnostic in err, at its file, line and column, so that an invalid
// scenario is marked on its line in the pull request. A file that could not
// be read is annotated without a position.
func (g github) annotateDiagnostics(w io.Writer, err error) {
	if !g.enabled {
		return
	}
	for _, d := range diagnostics(err) {
		reporters.WriteErrorAnnotation(w, g.path(d.Pos.File), d.Pos.Line, d.Pos.Col, "loadgate: invalid scenario", d.Msg)
	}
}

// diagnostics lists the scenario diagnostics in err, however wrapped:
// every scenarios.Error, and each problem of a loadProblems that holds
// none (a file that could not be read) as a diagnostic without a position.
func diagnostics(err error) []*scenarios.Error {
	var out []*scenarios.Error
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case scenarios.ErrorList:
			out = append(out, e...)
		case *scenarios.Error:
			out = append(out, e)
		case loadProblems:
			for _, p := range e {
				if ds := diagnostics(p); len(ds) > 0 {
					out = append(out, ds...)
				} else {
					out = append(out, &scenarios.Error{Msg: p.Error()})
				}
			}
		case interface{ Unwrap() []error }:
			for _, x := range e.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// path is file as an annotation names it: relative to the workspace, with
// forward slashes, when it lies inside it (GitHub matches annotations to
// the repository's files by that path); as given otherwise.
func (g github) path(file string) string {
	if file == "" || g.workspace == "" {
		return file
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return file
	}
	rel, err := filepath.Rel(g.workspace, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	return filepath.ToSlash(rel)
}
