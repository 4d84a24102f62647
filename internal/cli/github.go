package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
)

// GitHub Actions integration (SPEC §5): with GITHUB_ACTIONS=true the
// Markdown summary is appended to $GITHUB_STEP_SUMMARY and the run's
// annotations (reporters.WriteAnnotations) are printed.

// stepSummaryLimit keeps the appended summary under GitHub's 1 MiB cap for a
// step summary, leaving room for what other steps write.
const stepSummaryLimit = 900 << 10

type github struct {
	enabled bool
	summary string // $GITHUB_STEP_SUMMARY path, "" = none
}

func githubFrom(env Env) github {
	return github{enabled: env.Getenv("GITHUB_ACTIONS") == "true", summary: env.Getenv("GITHUB_STEP_SUMMARY")}
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
		reporters.WriteAnnotations(w, run)
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
