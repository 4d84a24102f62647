package results

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// Baseline is one or more earlier results documents that a run is judged
// against (--baseline). It implements assertions.Baseline: a case is found
// by scenario name and case ID (which encodes the target and the matrix
// values), in the newest document that has it.
type Baseline struct {
	// Source is the path given: a results file or a directory of them.
	Source string
	docs   []baselineDoc // newest first by Run.End
}

type baselineDoc struct {
	path string
	run  *Run
}

// LoadBaseline reads a results file, or every *.json file of a directory
// (not its subdirectories). Every file read must be a complete results
// document of this schema: a stray file or an interrupted run in a
// baseline directory is a mistake worth hearing about, not something to
// skip in silence.
func LoadBaseline(path string) (*Baseline, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.json")); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no results files (*.json) in the directory", path)
		}
	}
	runs := make([]*Run, 0, len(files))
	for _, f := range files {
		run, err := ReadRunFile(f)
		if err != nil {
			return nil, err
		}
		if err := RefuseInterrupted(run, "a baseline"); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if err := RefuseInvalid(run, "a baseline"); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		runs = append(runs, run)
	}
	return NewBaseline(path, files, runs), nil
}

// NewBaseline wraps documents already read, newest first by Run.End;
// names label them in reports the way file paths do (LoadBaseline passes
// the paths it read).
func NewBaseline(source string, names []string, runs []*Run) *Baseline {
	b := &Baseline{Source: source}
	for i, r := range runs {
		b.docs = append(b.docs, baselineDoc{path: names[i], run: r})
	}
	slices.SortStableFunc(b.docs, func(x, y baselineDoc) int { return y.run.End.Compare(x.run.End) })
	return b
}

// ReadRunFile reads the results document at path, naming the file in any
// error.
func ReadRunFile(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	run, err := ReadRun(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// Files lists the documents read, newest first.
func (b *Baseline) Files() []string {
	out := make([]string, len(b.docs))
	for i, d := range b.docs {
		out[i] = d.path
	}
	return out
}

// Case implements assertions.Baseline.
func (b *Baseline) Case(scenario, caseID, phase string) (BaselineCase, bool) {
	c, _ := b.find(scenario, caseID)
	if c == nil {
		return BaselineCase{}, false
	}
	phases := c.Phases
	if phase != "" {
		phases = nil
		for _, p := range c.Phases {
			if p.Name == phase {
				phases = append(phases, p)
			}
		}
	}
	if len(phases) == 0 {
		return BaselineCase{}, false
	}
	bc := NewBaselineCase(phases)
	// Usage covers the case's measured phases together, so a phase
	// narrowing sees the whole case's, as the case being judged does.
	bc.Server = c.Server
	bc.Load = c.Load
	return bc, true
}

// find returns the newest baseline case of scenario with caseID and the
// file it came from; a nil Baseline matches nothing. A case that could not be carried out, or measured
// nothing, is no baseline.
func (b *Baseline) find(scenario, caseID string) (*CaseRun, string) {
	if b == nil {
		return nil, ""
	}
	for _, d := range b.docs {
		for _, sr := range d.run.Scenarios {
			if sr.Name != scenario {
				continue
			}
			for _, c := range sr.Cases {
				if c.ID == caseID && c.Error == "" && len(c.Phases) > 0 {
					return c, d.path
				}
			}
		}
	}
	return nil, ""
}

// BaselineInfo records in results.json which baseline a run was judged
// against and whether it was measured in the same environment.
type BaselineInfo struct {
	// File is the path given to --baseline: a results file or a directory.
	File string `json:"file"`
	// Files lists the results files read from a directory, newest first.
	Files []string `json:"files,omitempty"`
	// FingerprintMatch is true when every baseline file was measured on
	// the same kind of machine with the same loadgate version as this run.
	FingerprintMatch bool `json:"fingerprint_match"`
	// Differences lists what differs, e.g. `cpu_model: baseline "X", this run "Y"`.
	Differences []string `json:"differences,omitempty"`
	// History: File is a history store (run --baseline-history), and each
	// case compares with main's latest level there.
	History bool `json:"history,omitempty"`
	// StrictEnv: a different environment fails the run (--strict-env).
	StrictEnv bool `json:"strict_env,omitempty"`
}

// EnvFailed reports whether the environment check fails the run.
func (bi *BaselineInfo) EnvFailed() bool {
	return bi != nil && bi.StrictEnv && !bi.FingerprintMatch
}

// RunBaseline is what a run is judged against: results documents
// (Baseline) or the history of main. It is what results.json records of it.
type RunBaseline interface {
	// Case is what a rule sees of a baseline case (assertions.Baseline).
	Case(scenario, caseID, phase string) (BaselineCase, bool)
	// CaseFigures are the case's figures that every report shows beside
	// the case; nil when the baseline has no such case. load is the
	// case's own load shape, nil when unknown.
	CaseFigures(scenario, caseID string, load *scenarios.LoadShape) *CaseBaseline
	// Info says which baseline it is and whether it was measured in the
	// environment of this run's host and loadgate version.
	Info(host Host, version string, strict bool) *BaselineInfo
}

var _ RunBaseline = (*Baseline)(nil)

// BaselineInfoFor is b's Info; nil without a baseline.
func BaselineInfoFor(b RunBaseline, host Host, version string, strict bool) *BaselineInfo {
	if b == nil {
		return nil
	}
	return b.Info(host, version, strict)
}

// Info compares the fingerprint of every baseline document with this
// run's host and loadgate version.
func (b *Baseline) Info(host Host, version string, strict bool) *BaselineInfo {
	if b == nil {
		return nil
	}
	bi := &BaselineInfo{File: b.Source, FingerprintMatch: true, StrictEnv: strict}
	if len(b.docs) > 1 || (len(b.docs) == 1 && b.docs[0].path != b.Source) {
		bi.Files = b.Files()
	}
	cur := Fingerprint{Host: host, LoadgateVersion: version}
	for _, d := range b.docs {
		diffs := FingerprintDiff(d.run.Fingerprint(), cur, "baseline", "this run")
		if len(diffs) == 0 {
			continue
		}
		bi.FingerprintMatch = false
		for _, diff := range diffs {
			if len(b.docs) > 1 {
				diff = filepath.Base(d.path) + ": " + diff
			}
			bi.Differences = append(bi.Differences, diff)
		}
	}
	return bi
}

// Fingerprint is what decides whether two runs' figures are comparable:
// the kind of machine that generated the load and the loadgate version.
// The host name is left out, since equivalent CI runners differ in name.
type Fingerprint struct {
	Host
	LoadgateVersion string
}

// Fingerprint returns the run's environment fingerprint.
func (r *Run) Fingerprint() Fingerprint {
	return Fingerprint{Host: r.Host, LoadgateVersion: r.LoadgateVersion}
}

// FingerprintDiff lists how b differs from a, one entry per field, each
// naming the two sides, e.g. `cores: baseline 4, this run 8`.
func FingerprintDiff(a, b Fingerprint, aName, bName string) []string {
	var out []string
	add := func(field, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: %s %s, %s %s", field, aName, x, bName, y))
		}
	}
	add("cpu_model", strconv.Quote(a.CPUModel), strconv.Quote(b.CPUModel))
	add("cores", strconv.Itoa(a.Cores), strconv.Itoa(b.Cores))
	add("os", strconv.Quote(a.OS), strconv.Quote(b.OS))
	add("arch", strconv.Quote(a.Arch), strconv.Quote(b.Arch))
	add("runner", strconv.Quote(a.Runner), strconv.Quote(b.Runner))
	add("loadgate_version", strconv.Quote(a.LoadgateVersion), strconv.Quote(b.LoadgateVersion))
	return out
}

// CaseBaseline is a case's figures in the baseline, kept beside the case
// in results.json so that every report can show the change without the
// baseline file at hand. Its figures are the ones regressed() compares:
// with trials, the median trial's (TrialMedians), so that a
// report's delta is the verdict's.
type CaseBaseline struct {
	File      string        `json:"file"`   // the results file the case came from
	Trials    int           `json:"trials"` // 1 when the phases ran once
	RPS       float64       `json:"rps"`    // the median trial's with trials
	P50       time.Duration `json:"p50_ns"` // the median trial's with trials
	P99       time.Duration `json:"p99_ns"` // the median trial's with trials
	ErrorRate float64       `json:"error_rate"`
	// Runs is how many runs of main the figures pool, with a history
	// baseline (run --baseline-history): the runs of the latest segment.
	// 0 with a results file.
	Runs int `json:"runs,omitempty"`
	// Commits is the pooled runs' commit range, "a1b2c3d…e4f5a6b"; empty
	// with a results file.
	Commits string `json:"commits,omitempty"`
	// Undecided says why no comparison with this baseline case decides a
	// rule, e.g. too few runs at main's latest level; empty when one can.
	Undecided string `json:"undecided,omitempty"`
	// LoadDifferences lists how the baseline case's load differs from
	// this case's ("concurrency 4 → 1"); empty when alike. A case whose
	// load differs is not compared: its rules comparing with the baseline
	// are incomparable, and reports show no delta.
	LoadDifferences []string `json:"load_differences,omitempty"`
}

// CaseFigures looks up the figures of a case in b; nil when none
// matches. load is the case's own load shape, nil when unknown.
func (b *Baseline) CaseFigures(scenario, caseID string, load *scenarios.LoadShape) *CaseBaseline {
	c, file := b.find(scenario, caseID)
	if c == nil {
		return nil
	}
	m := TrialMedians(c.Phases)
	cb := &CaseBaseline{File: file, Trials: m.Trials, RPS: m.RPS, P50: m.P50, P99: m.P99, ErrorRate: m.ErrorRate}
	if c.Load != nil && load != nil {
		cb.LoadDifferences = scenarios.LoadDifferences(*c.Load, *load, "", true)
	}
	return cb
}
