package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
)

// fileOutput is one report written to a file of its own, or to stdout ("-").
type fileOutput struct {
	flag  string
	path  string
	write func(io.Writer, *results.Run) error
}

func (o runOptions) fileOutputs() []fileOutput {
	return []fileOutput{
		{"--junit", o.junit, reporters.JUnitOptions{SourceAttrs: o.junitSourceAttrs}.Write},
		{"--markdown", o.markdown, reporters.WriteMarkdown},
		{"--html", o.html, reporters.WriteHTML},
		{"--json", o.json, results.WriteJSON},
	}
}

// humanOutput is where text for people goes: stdout, unless a report is
// written there, in which case stdout carries that report alone
// (`--json - | jq .` must parse) and people read stderr.
func (o runOptions) humanOutput(env Env) (io.Writer, error) {
	var toStdout []string
	for _, f := range o.fileOutputs() {
		if f.path == "-" {
			toStdout = append(toStdout, f.flag)
		}
	}
	switch len(toStdout) {
	case 0:
		return env.Stdout, nil
	case 1:
		return env.Stderr, nil
	default:
		return nil, fmt.Errorf("%s and %s both write to stdout (-): only one report can go there", toStdout[0], toStdout[1])
	}
}

// checkOutputs creates every output location and proves it writable
// before any load is sent: a run whose results cannot be kept is not worth
// sending, and finding out afterwards loses the measurements.
func (o runOptions) checkOutputs(gh github) error {
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return fmt.Errorf("--out %s: %w", o.out, unwrapPath(err))
		}
		if err := probeDir(o.out); err != nil {
			return fmt.Errorf("--out %s: %w", o.out, err)
		}
	}
	for _, f := range o.fileOutputs() {
		if f.path == "" || f.path == "-" {
			continue
		}
		if err := probeFile(f.path); err != nil {
			return fmt.Errorf("%s %s: %w", f.flag, f.path, err)
		}
	}
	if gh.enabled && gh.summary != "" {
		// Appended to, never replaced: opening it for append is the probe.
		sf, err := os.OpenFile(gh.summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
		}
		if err := sf.Close(); err != nil {
			return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	return nil
}

// probeFile checks that path can be replaced by a new file: it is not a
// directory, and its directory exists (it is created) and takes files.
func probeFile(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("is a directory")
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return unwrapPath(err)
	}
	return probeDir(dir)
}

// probeDir creates and removes a file in dir: permission bits, read-only
// mounts and ACLs all answer the only question that matters.
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".loadgate-probe-*")
	if err != nil {
		return unwrapPath(err)
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return err
	}
	return cerr
}

// unwrapPath drops the *PathError wrapping when the caller names the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// writeOutputs writes every report as one set: the files of --out and the
// individual --junit/--markdown/--html/--json files are all put in place, or, when
// one cannot be written, none is, so no directory mixes two runs. A report
// bound for stdout is written last, once the files are safe.
func writeOutputs(run *results.Run, opts runOptions, stdout io.Writer) error {
	set := reporters.FileSet{JUnit: reporters.JUnitOptions{SourceAttrs: opts.junitSourceAttrs}}
	if opts.out != "" {
		set.AddAll(opts.out, run)
	}
	for _, f := range opts.fileOutputs() {
		if f.path != "" && f.path != "-" {
			set.Add(f.path, func(w io.Writer) error { return f.write(w, run) })
		}
	}
	if err := set.Commit(); err != nil {
		return err
	}
	for _, f := range opts.fileOutputs() {
		if f.path == "-" {
			if err := f.write(stdout, run); err != nil {
				return fmt.Errorf("%s -: %w", f.flag, err)
			}
		}
	}
	return nil
}

// writeTo writes one rendered document to path, atomically, or to stdout
// when path is "" or "-".
func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(stdout)
	}
	return reporters.WriteFileAtomic(path, write)
}

// outputsLine says in one line where the reports went: "loadgate demo:
// reports in /tmp/x: results.json, junit.xml, summary.md, report.html",
// then any file of its own and any report sent to stdout. Paths are
// absolute, so the line can be pasted into a browser or a shell whatever
// the directory it ran in.
func (o runOptions) outputsLine() string {
	var parts []string
	if o.out != "" {
		parts = append(parts, fmt.Sprintf("reports in %s: %s", absPath(o.out),
			strings.Join([]string{reporters.ResultsFile, reporters.JUnitFile, reporters.MarkdownFile, reporters.HTMLFile}, ", ")))
	}
	var files, stdout []string
	for _, f := range o.fileOutputs() {
		switch f.path {
		case "":
		case "-":
			stdout = append(stdout, f.flag)
		default:
			files = append(files, absPath(f.path))
		}
	}
	if len(files) > 0 {
		what := "also"
		if o.out == "" {
			what = "reports:"
		}
		parts = append(parts, what+" "+strings.Join(files, ", "))
	}
	if len(stdout) > 0 {
		parts = append(parts, strings.Join(stdout, ", ")+" on stdout")
	}
	if len(parts) == 0 {
		parts = append(parts, `no report written (--out "")`)
	}
	return "loadgate " + o.announce + ": " + strings.Join(parts, "; ")
}

// absPath is path made absolute, or as given when the working directory
// cannot be found.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
