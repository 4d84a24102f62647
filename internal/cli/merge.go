package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// mergeCommand puts the parts of a distributed run together, judges the
// whole against the scenario's thresholds and reports like run: the same
// outputs, the same exit codes, 2 for parts that do not belong together.
func mergeCommand(ctx context.Context, args []string, env Env) error {
	var opts runOptions
	fs := newFlagSet("merge", env, "merge [flags] PART.json...")
	opts.registerOutputs(fs, env)
	opts.registerProgress(fs, env)
	opts.registerJudging(fs, env)
	allowPartial := fs.Bool("allow-partial", envBool(env, "allow-partial"),
		"judge the segments that arrived when some are missing or incomplete (every report says so); without it such a merge judges nothing and exits 3")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(files) == 0 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("merge: no parts given: list every segment's results.json"))
	}
	parts, err := readParts(files)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := refuseOverwrite(files, opts); err != nil {
		return withCode(ExitUsage, err)
	}
	human, err := opts.humanOutput(env)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	m, err := mergeParts(parts, env.Stderr)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("merge: %w", err))
	}
	m.Info.AllowPartial = *allowPartial
	m.Info.NoteClocksAhead(time.Now())

	meta := results.Meta{Version: m.Version, Commit: m.Commit, Host: m.Host, Start: m.Start, End: m.End,
		StrictEnv: opts.strictEnv, Merged: m.Info}
	var scs []*scenarios.Scenario
	for _, ms := range m.Scenarios {
		scs = append(scs, ms.Scenario)
	}
	judgeOpts, err := opts.judging(&meta, scs)
	if err != nil {
		return err
	}
	gh := githubFrom(env)
	if err := opts.checkOutputs(gh); err != nil {
		return withCode(ExitRun, err)
	}
	console := reporters.NewConsole(human, reporters.ConsoleOptions{Quiet: opts.quiet, NoProgress: true, Now: time.Now})
	console.BaselineNote(results.BaselineInfoFor(meta.Baseline, meta.Host, meta.Version, meta.StrictEnv))
	fmt.Fprintln(human, mergeHeadline(m))
	reporters.WriteSegmentRows(human, m.Info)
	inputs, runFailed, err := judgeMerged(m, judgeOpts, console, gh, human, env.Stderr)
	if err != nil {
		return err
	}
	meta.Interrupted = ctx.Err() != nil
	run := results.NewRun(meta, inputs)
	console.Headline(run)
	if err := console.Err(); err != nil {
		fmt.Fprintf(env.Stderr, "loadgate: console output failed: %v\n", err)
	}
	notJudged := m.Info.NotJudged()
	err = finish(run, opts, env.Stdout, human, gh, runFailed, notJudged)
	if err == nil && notJudged {
		// Not a slow result but no result: the figures lack a share
		// of the load, so no threshold can pass or fail on them.
		return withCode(ExitRun, fmt.Errorf("merge: %s; thresholds not judged (--allow-partial judges what arrived)", m.Info.PartialText()))
	}
	return err
}

// mergeParts puts the parts together, refusing parts that do not belong
// together or that did not run the cases of their share; what the
// segments merely differ in is printed as a warning.
func mergeParts(parts []results.Part, stderr io.Writer) (*results.Merged, error) {
	m, err := results.MergeParts(parts)
	if err == nil {
		err = checkSameCases(parts, m)
	}
	if err != nil {
		return nil, err
	}
	for _, w := range m.Warnings {
		fmt.Fprintln(stderr, reporters.ConsoleText("loadgate: merge: the segments differ: "+w))
	}
	return m, nil
}

// judgeMerged judges each merged scenario against its thresholds, as
// compiled from the scenario the parts carry, and shows its summary;
// failed is true when a segment could not carry out a case or a scenario.
func judgeMerged(m *results.Merged, judge assertions.JudgeOptions, console *reporters.Console, gh github, human, stderr io.Writer) (inputs []results.ScenarioInput, failed bool, err error) {
	for _, ms := range m.Scenarios {
		rules, err := assertions.Compile(ms.Scenario)
		if err != nil {
			return nil, false, withCode(ExitUsage, fmt.Errorf("merge: scenario %q: %w", ms.Scenario.Name, err))
		}
		in := results.ScenarioInput{Result: ms.Result, Err: ms.Err, Scenario: ms.Scenario}
		if !m.Info.NotJudged() {
			// Without a segment's share, a threshold on the whole would
			// judge a smaller load than the scenario's: none is judged.
			in.Verdicts = rules.Judge(ms.Result, judge)
		}
		endGroup := gh.group(human, "loadgate: "+ms.Scenario.Name)
		console.Summary(ms.Result, in.Verdicts)
		endGroup()
		for _, c := range ms.Result.Cases {
			if c.Err != "" {
				failed = true
				fmt.Fprintln(stderr, reporters.ConsoleText(fmt.Sprintf("loadgate: %s: case %q: %s", ms.Scenario.Name, c.ID, c.Err)))
			}
		}
		if ms.Err != nil {
			failed = true
			fmt.Fprintln(stderr, reporters.ConsoleText(fmt.Sprintf("loadgate: %s: %v", ms.Scenario.Name, ms.Err)))
		}
		inputs = append(inputs, in)
	}
	return inputs, failed, nil
}

// readParts reads every part; a directory stands for its results.json,
// which is how artifacts of CI jobs usually arrive.
func readParts(files []string) ([]results.Part, error) {
	parts := make([]results.Part, 0, len(files))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			f = filepath.Join(f, reporters.ResultsFile)
		}
		run, err := results.ReadRunFile(f)
		if err != nil {
			return nil, err
		}
		parts = append(parts, results.Part{Name: f, Run: run})
	}
	return parts, nil
}

// refuseOverwrite stops merge from writing its results over one of its
// own parts, which `merge -o loadgate-results loadgate-results/...` would.
func refuseOverwrite(files []string, opts runOptions) error {
	var outputs []string
	if opts.out != "" {
		outputs = append(outputs, filepath.Join(opts.out, reporters.ResultsFile))
	}
	if opts.json != "" && opts.json != "-" {
		outputs = append(outputs, opts.json)
	}
	for _, o := range outputs {
		for _, f := range files {
			if st, err := os.Stat(f); err == nil && st.IsDir() {
				f = filepath.Join(f, reporters.ResultsFile)
			}
			if samePath(o, f) {
				return fmt.Errorf("merge: the merged results would overwrite the part %s; choose another --out or --json", f)
			}
		}
	}
	return nil
}

func samePath(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// mergeHeadline names what was merged and how far apart the segments
// started: a large spread means they did not load the server together.
func mergeHeadline(m *results.Merged) string {
	segs := m.Info.Segments
	var names []string
	for _, s := range m.Scenarios {
		names = append(names, s.Scenario.Name)
	}
	var first, last time.Time
	idle := 0
	for _, s := range segs {
		if s.NothingToSend {
			idle++
			continue
		}
		if first.IsZero() || s.Start.Before(first) {
			first = s.Start
		}
		if s.Start.After(last) {
			last = s.Start
		}
	}
	line := fmt.Sprintf("loadgate merge: %d segments of %s, started within %s of each other",
		len(segs), strings.Join(names, ", "), last.Sub(first).Round(time.Millisecond))
	if idle > 0 {
		line += fmt.Sprintf(" (%d had nothing to send)", idle)
	}
	return line + "\n"
}
