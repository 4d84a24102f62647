package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
)

// reportFormats maps --format to the renderer of one results document.
var reportFormats = map[string]func(io.Writer, *results.Run) error{
	"html":     reporters.WriteHTML,
	"markdown": reporters.WriteMarkdown,
	"junit":    reporters.WriteJUnit,
}

// formatFromName guesses the format from the output file's extension, so
// that `-o summary.md` needs no --format.
func formatFromName(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return "markdown"
	case ".xml":
		return "junit"
	}
	return "html"
}

// reportCommand renders saved results again. It never sends load: the
// verdicts are those stored in the files, and the exit code is the one
// their run ended with (130 interrupted, 3 not carried out, 1 failed).
func reportCommand(args []string, env Env) error {
	fs := newFlagSet("report", env, "report [-o FILE] [--format html|markdown|junit] RESULTS.json...")
	out := fs.String("out", "", "write the report to `FILE` instead of stdout (- = stdout)")
	fs.StringVar(out, "o", "", "shorthand for --out")
	format := fs.String("format", "", "report `format`: html, markdown or junit (default: from --out's extension, else html)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(files) == 0 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("report: no results file given"))
	}
	f := *format
	if f == "" {
		f = formatFromName(*out)
	}
	if _, ok := reportFormats[f]; !ok {
		return withCode(ExitUsage, fmt.Errorf("report: --format %q: want html, markdown or junit", f))
	}
	if f == "junit" && len(files) > 1 {
		return withCode(ExitUsage, errors.New("report: --format junit takes one results file: a JUnit document describes one run"))
	}
	runs := make([]reporters.NamedRun, len(files))
	for i, name := range files {
		run, err := results.ReadRunFile(name)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		runs[i] = reporters.NamedRun{Name: name, Run: run}
	}
	write := func(w io.Writer) error { return renderRuns(w, f, runs) }
	if err := writeTo(*out, env.Stdout, write); err != nil {
		return withCode(ExitRun, err)
	}
	return storedEnding(runs)
}

// renderRuns writes runs in format f: one run as it would be written by
// run; several side by side, one section each.
func renderRuns(w io.Writer, f string, runs []reporters.NamedRun) error {
	if len(runs) == 1 {
		return reportFormats[f](w, runs[0].Run)
	}
	if f == "html" {
		return reporters.WriteHTMLRuns(w, runs)
	}
	for i, nr := range runs {
		if i > 0 {
			if _, err := io.WriteString(w, "\n---\n\n"); err != nil {
				return fmt.Errorf("write Markdown: %w", err)
			}
		}
		if _, err := fmt.Fprintf(w, "# Results: `%s`\n\n", strings.ReplaceAll(nr.Name, "`", "'")); err != nil {
			return fmt.Errorf("write Markdown: %w", err)
		}
		if err := reporters.WriteMarkdown(w, nr.Run); err != nil {
			return err
		}
	}
	return nil
}

// storedEnding is the exit code the saved runs ended with, the worst one
// across files: interrupted, then not carried out or invalid, then failed.
// It is derived from the figures and verdicts (ReadRun derives Passed
// again), never from the stored "passed" flag alone.
func storedEnding(runs []reporters.NamedRun) error {
	var interrupted, notCarried, invalid, failed []string
	for _, nr := range runs {
		switch r := nr.Run; {
		case r.Interrupted:
			interrupted = append(interrupted, nr.Name)
		case r.NotCarriedOut():
			notCarried = append(notCarried, nr.Name)
		case r.Invalid():
			invalid = append(invalid, nr.Name+": "+r.InvalidReason())
		case judged(r) != nil:
			failed = append(failed, nr.Name)
		}
	}
	switch {
	case len(interrupted) > 0:
		return withCode(ExitInterrupted, fmt.Errorf("report: %s: the run was interrupted; its figures are partial and not judged", strings.Join(interrupted, ", ")))
	case len(notCarried) > 0:
		return withCode(ExitRun, fmt.Errorf("report: %s: the run could not be carried out", strings.Join(notCarried, ", ")))
	case len(invalid) > 0:
		return withCode(ExitRun, fmt.Errorf("report: invalid run — not judged: %s", strings.Join(invalid, "; ")))
	case len(failed) > 0:
		return withCode(ExitFailed, fmt.Errorf("report: %s: the run failed", strings.Join(failed, ", ")))
	}
	return nil
}
