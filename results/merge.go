package results

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// Distributed runs (SPEC §9): `loadgate run --segment I/N` writes a part,
// the results document of one segment's share of the load. MergeParts puts
// N parts back together into the figures of the whole run; the caller then
// judges them against the scenario's thresholds, which no part can do on
// its own share.

// SegmentInfo marks a results document as one segment of a distributed run.
type SegmentInfo struct {
	Index int `json:"index"` // 1-based, as in --segment 2/4
	Count int `json:"count"`
	// StartAt is the planned start (--start-at); nil when the segment
	// started as soon as it was ready.
	StartAt *time.Time `json:"start_at,omitempty"`
	// Skew is when the segment actually started minus StartAt: how late it
	// was, e.g. because its job was scheduled after the planned time.
	Skew time.Duration `json:"skew_ns,omitempty"`
}

// Part reports whether the document holds a share of a larger run, whose
// thresholds only the merged whole can be judged against.
func (s *SegmentInfo) Part() bool { return s != nil && s.Count > 1 }

func (s *SegmentInfo) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// MergeInfo records in a merged document which parts it was made of.
type MergeInfo struct {
	Segments []MergedSegment `json:"segments"` // in segment order
	// UpperBounds names the figures that a merge cannot recompute exactly
	// and gives as the largest of the parts' values, an upper bound of the
	// true figure: the p50 and p99 of each point of the per-second series
	// ("series") and of each trial ("trials"). Phase and case percentiles
	// are exact: they come from the merged histograms.
	UpperBounds []string `json:"upper_bounds"`
	// AllowPartial: merge was told (--allow-partial) to judge the
	// segments that arrived when some are missing or incomplete; without
	// it such a merge judges nothing and never passes.
	AllowPartial bool `json:"allow_partial,omitempty"`
}

// MergedSegment is one part of a merged run.
type MergedSegment struct {
	Index       int           `json:"index"`
	File        string        `json:"file,omitempty"`
	Hostname    string        `json:"hostname,omitempty"`
	Start       time.Time     `json:"start,omitzero"`
	End         time.Time     `json:"end,omitzero"`
	StartAt     *time.Time    `json:"start_at,omitempty"`
	Skew        time.Duration `json:"skew_ns,omitempty"`
	Interrupted bool          `json:"interrupted,omitempty"`
	// NothingToSend: the segment had no share of any scenario; it did not
	// wait for StartAt, so its Start says nothing about alignment.
	NothingToSend bool `json:"nothing_to_send,omitempty"`
	// Share is the fraction (0..1) of the scenarios' measured load that
	// the segment was to send, from the scenario's split alone
	// (scenarios.SegmentLoads): what the whole lacks when it is missing.
	Share float64 `json:"share"`
	// Requests is the part's measured requests, all phases and cases
	// added up; 0 for a missing part.
	Requests int64 `json:"requests"`
	// Succeeded is how many of Requests passed every expect check.
	Succeeded int64 `json:"succeeded"`
	// Missing: no part of this segment was given to merge.
	Missing bool `json:"missing,omitempty"`
	// Incomplete says why the part did not deliver its share of the load
	// ("interrupted", "no answer in 5 s of phase …"); empty when it did.
	Incomplete string `json:"incomplete,omitempty"`
	// Late says how the segment started out of step with the others by
	// more than MergeTolerance ("started 2.4s after --start-at"); empty
	// when it started with them.
	Late string `json:"late,omitempty"`
}

// Part is one segment's results document and the name it was read under.
type Part struct {
	Name string // the file, for messages
	Run  *Run
}

// Merged is a distributed run put back together, ready to be judged.
type Merged struct {
	Info       *MergeInfo
	Start, End time.Time // earliest start and latest end of the parts
	// Version, Commit and Host are segment 1's; Warnings says where the
	// other segments differ.
	Version, Commit string
	Host            Host
	Scenarios       []MergedScenario
	// Warnings are differences between the parts that do not stop the
	// merge, such as machines of another kind or another loadgate version.
	Warnings []string
}

// MergedScenario is one scenario of a merged run.
type MergedScenario struct {
	// Scenario is parsed again from the source the parts carry, with
	// their variables; its Cases give the order and matrix values.
	Scenario *scenarios.Scenario
	Result   *ScenarioResult
	// Err is set when some segment could not carry out the scenario;
	// Result then holds what the segments measured.
	Err error
}

// MergeParts checks that parts are every segment of one run, exactly once,
// and merges them scenario by scenario, case by case (by ID) and phase by
// phase (by name): counters and histograms add up exactly, wall times are
// the union of the segments' intervals, the per-second series is aligned
// on wall-clock seconds and trials are merged trial by trial (see
// mergePhase). An error means the input is wrong and nothing was merged.
func MergeParts(parts []Part) (*Merged, error) {
	parts, count, err := checkSegments(parts)
	if err != nil {
		return nil, err
	}
	first := parts[0].Run
	m := &Merged{
		Info:    &MergeInfo{UpperBounds: []string{"series", "trials"}},
		Start:   first.Start,
		End:     first.End,
		Version: first.LoadgateVersion,
		Commit:  first.Commit,
		Host:    first.Host,
	}
	for _, p := range parts {
		r := p.Run
		if r.Start.Before(m.Start) {
			m.Start = r.Start
		}
		if r.End.After(m.End) {
			m.End = r.End
		}
		if r == first {
			continue
		}
		seg := "segment " + r.Segment.String()
		from := "segment " + first.Segment.String()
		if r.Commit != m.Commit {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s tested commit %q, %s %q", seg, r.Commit, from, m.Commit))
		}
		m.Warnings = append(m.Warnings, FingerprintDiff(first.Fingerprint(), r.Fingerprint(), from, seg)...)
	}
	names, err := checkScenarios(parts)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		ms, err := mergeScenario(name, parts)
		if err != nil {
			return nil, err
		}
		m.Scenarios = append(m.Scenarios, ms)
	}
	m.assessParts(parts, count)
	return m, nil
}

// checkSegments refuses anything but segments of one N, each at most once,
// and returns the parts in segment order with N. A missing segment is not
// refused: the merge names it with its share of the load (assessParts).
func checkSegments(parts []Part) ([]Part, int, error) {
	if len(parts) == 0 {
		return nil, 0, errors.New("no parts to merge")
	}
	count, countFrom := 0, ""
	byIndex := map[int]Part{}
	for _, p := range parts {
		seg := p.Run.Segment
		switch {
		case seg == nil:
			return nil, 0, fmt.Errorf("%s is not a segment part: it has no \"segment\" block (parts are written by loadgate run --segment I/N)", p.Name)
		case seg.Count < 1 || seg.Index < 1 || seg.Index > seg.Count:
			return nil, 0, fmt.Errorf("%s: invalid segment %d/%d", p.Name, seg.Index, seg.Count)
		case count == 0:
			count, countFrom = seg.Count, p.Name
		case seg.Count != count:
			return nil, 0, fmt.Errorf("parts of different runs: %s is segment %s, %s is one of %d segments", p.Name, seg, countFrom, count)
		}
		if err := RefuseInvalid(p.Run, "merged"); err != nil {
			return nil, 0, fmt.Errorf("%s (segment %s): %w: its figures describe the generator; run that segment again on a less loaded machine", p.Name, seg, err)
		}
		if prev, dup := byIndex[seg.Index]; dup {
			return nil, 0, fmt.Errorf("segment %s is given twice: %s and %s", seg, prev.Name, p.Name)
		}
		byIndex[seg.Index] = p
	}
	sorted := make([]Part, 0, len(byIndex))
	for i := 1; i <= count; i++ {
		if p, ok := byIndex[i]; ok {
			sorted = append(sorted, p)
		}
	}
	return sorted, count, nil
}

// checkScenarios makes sure every part ran the same scenarios (same name,
// same file contents, same variables) and returns their names in run
// order.
func checkScenarios(parts []Part) ([]string, error) {
	type seen struct {
		sr   *ScenarioRun
		part Part
	}
	first := map[string]seen{}
	var names []string
	for _, p := range parts {
		for _, sr := range p.Run.Scenarios {
			if sr.Source == "" {
				return nil, fmt.Errorf("%s: scenario %q carries no source: it is not a segment part (parts are written by loadgate run --segment I/N)", p.Name, sr.Name)
			}
			f, ok := first[sr.Name]
			if !ok {
				first[sr.Name] = seen{sr, p}
				names = append(names, sr.Name)
				continue
			}
			if sr.Hash != f.sr.Hash {
				return nil, fmt.Errorf("parts of different scenarios: %q in %s (segment %s) has file hash %.12s, in %s (segment %s) %.12s",
					sr.Name, f.part.Name, f.part.Run.Segment, f.sr.Hash, p.Name, p.Run.Segment, sr.Hash)
			}
			if !maps.Equal(sr.Vars, f.sr.Vars) {
				return nil, fmt.Errorf("parts of different runs: scenario %q ran with different variables in %s (segment %s) and %s (segment %s): %s",
					sr.Name, f.part.Name, f.part.Run.Segment, p.Name, p.Run.Segment, varsDiff(f.sr.Vars, sr.Vars))
			}
		}
	}
	for _, p := range parts {
		if p.Run.Interrupted {
			continue // stopped before it got to every scenario: incomplete, not foreign
		}
		for _, name := range names {
			if !slices.ContainsFunc(p.Run.Scenarios, func(sr *ScenarioRun) bool { return sr.Name == name }) {
				return nil, fmt.Errorf("parts of different runs: %s (segment %s) has no scenario %q, which %s ran",
					p.Name, p.Run.Segment, name, first[name].part.Name)
			}
		}
	}
	return names, nil
}

// varsDiff names the first variable, in sorted order, that differs.
func varsDiff(a, b map[string]string) string {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		switch {
		case !oka:
			return fmt.Sprintf("%s is set only in the second", k)
		case !okb:
			return fmt.Sprintf("%s is set only in the first", k)
		case va != vb:
			return fmt.Sprintf("%s = %q and %q", k, va, vb)
		}
	}
	return "none"
}

// mergeScenario parses the scenario again from the parts' source and
// merges its cases.
func mergeScenario(name string, parts []Part) (MergedScenario, error) {
	runs, segs := scenarioParts(name, parts)
	sc, err := parseAgain(name, runs[0])
	if err != nil {
		return MergedScenario{}, err
	}
	res := &ScenarioResult{Scenario: sc}
	byID, errs := gatherCases(res, runs, segs)
	for _, c := range sc.Cases {
		cp := byID[c.ID]
		if cp == nil {
			continue // no segment got to it: interrupted
		}
		delete(byID, c.ID)
		res.Cases = append(res.Cases, cp.merge(&c))
	}
	for id := range byID {
		return MergedScenario{}, fmt.Errorf("scenario %q: the parts measured case %q, which the scenario does not have", name, id)
	}
	return MergedScenario{Scenario: sc, Result: res, Err: errors.Join(errs...)}, nil
}

// scenarioParts are the parts' runs of scenario name, each with the
// segment it measured.
func scenarioParts(name string, parts []Part) ([]*ScenarioRun, []*SegmentInfo) {
	var runs []*ScenarioRun
	var segs []*SegmentInfo
	for _, p := range parts {
		for _, sr := range p.Run.Scenarios {
			if sr.Name == name {
				runs = append(runs, sr)
				segs = append(segs, p.Run.Segment)
			}
		}
	}
	return runs, segs
}

// parseAgain parses the scenario from the source a part recorded: the
// merged verdicts are judged by its thresholds, so the source must be the
// one the parts ran.
func parseAgain(name string, src *ScenarioRun) (*scenarios.Scenario, error) {
	file := src.File
	if file == "" {
		file = name + ".yaml"
	}
	sc, err := scenarios.Parse(file, []byte(src.Source), scenarios.LoadOptions{Vars: src.Vars, JudgeOnly: true})
	if err != nil {
		return nil, fmt.Errorf("scenario %q cannot be parsed again from the parts' source: %w", name, err)
	}
	if src.Hash != "" && sc.Hash != src.Hash {
		return nil, fmt.Errorf("scenario %q: the parts' source does not match their file hash %.12s: was the part edited?", name, src.Hash)
	}
	return sc, nil
}

// caseParts are one case's results from every segment that ran it.
type caseParts struct {
	first  *CaseRun
	phases map[string][]*PhaseResult
	order  []string // phase names in the order the segments reported them
	errs   []string
}

// gatherCases spans res over the segments that had something to send and
// groups their cases' phases by case ID; errs are the segments' own
// errors.
func gatherCases(res *ScenarioResult, runs []*ScenarioRun, segs []*SegmentInfo) (map[string]*caseParts, []error) {
	var errs []error
	byID := map[string]*caseParts{}
	for i, sr := range runs {
		if sr.NothingToSend {
			continue
		}
		if res.Start.IsZero() || (!sr.Start.IsZero() && sr.Start.Before(res.Start)) {
			res.Start = sr.Start
		}
		if sr.End.After(res.End) {
			res.End = sr.End
		}
		if sr.Error != "" {
			errs = append(errs, fmt.Errorf("segment %s: %s", segs[i], sr.Error))
		}
		for _, c := range sr.Cases {
			cp := byID[c.ID]
			if cp == nil {
				cp = &caseParts{first: c, phases: map[string][]*PhaseResult{}}
				byID[c.ID] = cp
			}
			if c.Error != "" {
				cp.errs = append(cp.errs, fmt.Sprintf("segment %s: %s", segs[i], c.Error))
			}
			for _, ph := range c.Phases {
				if _, ok := cp.phases[ph.Name]; !ok {
					cp.order = append(cp.order, ph.Name)
				}
				cp.phases[ph.Name] = append(cp.phases[ph.Name], ph)
			}
		}
	}
	return byID, errs
}

// merge merges the case's phases, in the scenario's order of phases, then
// any the scenario no longer names in the order the segments reported them.
func (cp *caseParts) merge(c *scenarios.Case) *CaseResult {
	cr := &CaseResult{ID: c.ID, Target: c.Target.Name, Matrix: c.Matrix, Err: strings.Join(cp.errs, "; ")}
	order := make([]string, 0, len(cp.order))
	for _, ph := range c.Phases {
		if _, ok := cp.phases[ph.Name]; ok && !slices.Contains(order, ph.Name) {
			order = append(order, ph.Name)
		}
	}
	for _, n := range cp.order {
		if !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	for _, n := range order {
		cr.Phases = append(cr.Phases, mergePhase(cp.phases[n], scenarioPhase(c, n)))
	}
	return cr
}

// scenarioPhase finds the phase the parts' phase was split from.
func scenarioPhase(c *scenarios.Case, name string) *scenarios.Phase {
	for i := range c.Phases {
		if c.Phases[i].Name == name {
			return &c.Phases[i]
		}
	}
	return nil
}
