package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// A distributed run loses a host in one of three ways: its part never
// arrives (the machine died, or was cut off and wrote nothing), its
// process was killed (the part says it was interrupted), or it was cut off
// from the target and came back (the part arrives, but its share of the
// load was never delivered: its requests timed out while the others were
// answered). Merge names each such segment with the share of the load it
// carried and judges nothing on the rest, unless told to (--allow-partial).

// MergeTolerance is how far apart the segments may start, or how much
// shorter one may run, before merge says so: as much as run's own warning
// for a late start.
const MergeTolerance = time.Second

// Dark seconds: a segment is taken as cut off when, in one unbroken
// stretch of seconds without an answer, at least minDarkSeconds of which
// the other segments were answered in, its share of their answers says it
// should have had at least minDarkAnswers. Both bounds keep a slow or
// lightly loaded segment (a few answers per second, seconds with none when
// its requests take long) from being taken for a lost one: a stretch with
// 20 answers due and none coming is not a slow server but a lost link.
const (
	minDarkSeconds = 2
	minDarkAnswers = 20
)

// Partial lists the segments whose share of the load is not in the merged
// figures, with what they would have carried; nil when every one is.
func (mi *MergeInfo) Partial() []MergedSegment {
	if mi == nil {
		return nil
	}
	var out []MergedSegment
	for _, s := range mi.Segments {
		// A missing segment with no share of the load (more segments
		// than workers) took nothing from the whole.
		if s.Missing && s.Share > 0 || s.Incomplete != "" {
			out = append(out, s)
		}
	}
	return out
}

// NotJudged reports whether a merged run lacks some segment's load and
// was not told to judge what arrived: it is then never passed.
func (mi *MergeInfo) NotJudged() bool {
	return len(mi.Partial()) > 0 && !mi.AllowPartial
}

// PartialText says which segments are missing or incomplete and what
// share of the load each carried, e.g. "segment 2/3 missing: 33 % of the
// load"; "" when none is.
func (mi *MergeInfo) PartialText() string {
	var parts []string
	for _, s := range mi.Partial() {
		what := "missing"
		if !s.Missing {
			what = "incomplete (" + s.Incomplete + ")"
		}
		parts = append(parts, fmt.Sprintf("segment %d/%d %s: %s of the load", s.Index, len(mi.Segments), what, Percent(s.Share)))
	}
	return strings.Join(parts, "; ")
}

// Skewed lists the segments that started apart from the others or from
// the planned start by more than MergeTolerance, or whose clock was ahead
// of the merging machine's.
func (mi *MergeInfo) Skewed() []MergedSegment {
	if mi == nil {
		return nil
	}
	var out []MergedSegment
	for _, s := range mi.Segments {
		if s.Late != "" {
			out = append(out, s)
		}
	}
	return out
}

// SkewText says which segments started out of step, e.g. "segment 3/3
// started 2.4s after --start-at"; "" when none did.
func (mi *MergeInfo) SkewText() string {
	var parts []string
	for _, s := range mi.Skewed() {
		parts = append(parts, fmt.Sprintf("segment %d/%d %s", s.Index, len(mi.Segments), s.Late))
	}
	return strings.Join(parts, "; ")
}

// Percent writes a share (0..1) as people read it: "33 %", "8.3 %".
func Percent(share float64) string {
	p := share * 100
	if p >= 10 || p == 0 {
		return fmt.Sprintf("%.0f %%", p)
	}
	return fmt.Sprintf("%.1f %%", p)
}

// assessParts fills in, for every segment, its share of the load and
// whether its part is missing, incomplete or out of step. loads are the
// segments' loads summed over the merged scenarios (scenarios.SegmentLoads).
func (m *Merged) assessParts(parts []Part, count int) {
	total := make([]int64, count)
	phaseLoads := map[string][]scenarios.SegmentLoad{} // by scenario
	for _, ms := range m.Scenarios {
		loads := scenarios.SegmentLoads(ms.Scenario, count)
		phaseLoads[ms.Scenario.Name] = loads
		for i, l := range loads {
			total[i] += l.Total
		}
	}
	var sum int64
	for _, t := range total {
		sum += t
	}
	byIndex := map[int]Part{}
	for _, p := range parts {
		byIndex[p.Run.Segment.Index] = p
	}
	segs := make([]MergedSegment, 0, count)
	for i := 1; i <= count; i++ {
		var s MergedSegment
		if p, ok := byIndex[i]; ok {
			s = mergedSegment(p)
		} else {
			s = MergedSegment{Index: i, Missing: true}
		}
		switch {
		case sum > 0:
			s.Share = float64(total[i-1]) / float64(sum)
		default:
			// No part got as far as a scenario (all interrupted while
			// waiting): the split is unknown, so take it as even.
			s.Share = 1 / float64(count)
		}
		segs = append(segs, s)
	}
	for i := range segs {
		if p, ok := byIndex[segs[i].Index]; ok && !segs[i].NothingToSend {
			segs[i].Incomplete = incomplete(p, parts, phaseLoads)
		}
	}
	markLate(segs)
	m.Info.Segments = segs
}

func mergedSegment(p Part) MergedSegment {
	r := p.Run
	s := MergedSegment{
		Index: r.Segment.Index, File: p.Name, Hostname: r.Host.Hostname, Start: r.Start, End: r.End,
		StartAt: r.Segment.StartAt, Skew: r.Segment.Skew, Interrupted: r.Interrupted || anyScenarioInterrupted(r),
		NothingToSend: len(r.Scenarios) > 0 && !slices.ContainsFunc(r.Scenarios, func(sr *ScenarioRun) bool { return !sr.NothingToSend }),
	}
	for _, sr := range r.Scenarios {
		for _, c := range sr.Cases {
			for _, ph := range c.Phases {
				s.Requests += ph.Requests
				s.Succeeded += ph.Succeeded
			}
		}
	}
	return s
}

// incomplete says why part p did not deliver its share of the load, or ""
// when it did: it was interrupted, a phase hit the run's time limit, it
// ran a timed phase shorter than the others, or it went without answers
// while the others were answered (cut off from the target).
func incomplete(p Part, parts []Part, loads map[string][]scenarios.SegmentLoad) string {
	if p.Run.Interrupted || anyScenarioInterrupted(p.Run) {
		return "interrupted"
	}
	for _, sr := range p.Run.Scenarios {
		for _, c := range sr.Cases {
			for _, ph := range c.Phases {
				if ph.Ended == EndTimeLimit {
					return fmt.Sprintf("phase %q hit the run's time limit", ph.Name)
				}
				others := otherPhases(p, parts, sr.Name, c.ID, ph.Name)
				if why := shorter(ph, others); why != "" {
					return why
				}
				key := scenarios.PhaseKey{Case: c.ID, Phase: ph.Name}
				if why := dark(p.Run.Segment.Index, ph, others, loads[sr.Name], key); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// segPhase is one segment's result of a phase.
type segPhase struct {
	index int
	ph    *PhaseResult
}

// otherPhases are the other parts' results of the same phase of the same
// case.
func otherPhases(p Part, parts []Part, scenario, caseID, phase string) []segPhase {
	var out []segPhase
	for _, o := range parts {
		if o.Run == p.Run {
			continue
		}
		for _, sr := range o.Run.Scenarios {
			if sr.Name != scenario {
				continue
			}
			for _, c := range sr.Cases {
				if c.ID != caseID {
					continue
				}
				for _, ph := range c.Phases {
					if ph.Name == phase {
						out = append(out, segPhase{o.Run.Segment.Index, ph})
					}
				}
			}
		}
	}
	return out
}

// shorter says when a timed phase (one that ended by its duration in the
// other segments) ran markedly shorter in this one without a reason that
// would have stopped it on one machine too: its requests all sent, its
// data used up, a search decided, an abort rule.
func shorter(ph *PhaseResult, others []segPhase) string {
	var longest time.Duration
	for _, o := range others {
		if o.ph.Ended == EndDuration || o.ph.Ended == EndSchedule {
			longest = max(longest, o.ph.Elapsed)
		}
	}
	switch ph.Ended {
	case EndDuration, EndSchedule, EndRequests, EndData, EndSearch, EndAborted:
		return ""
	}
	if longest == 0 {
		return ""
	}
	if longest-ph.Elapsed > max(MergeTolerance, longest/10) {
		return fmt.Sprintf("ran %s of phase %q, the other segments %s", ph.Elapsed.Round(100*time.Millisecond), ph.Name, longest.Round(100*time.Millisecond))
	}
	return ""
}

// dark says when segment index went without answers through a stretch of
// its phase in which the other segments were answered (see minDarkSeconds):
// its link to the target was cut while theirs worked. Seconds are whole
// and aligned on the wall clock, as the merged series is.
func dark(index int, ph *PhaseResult, others []segPhase, loads []scenarios.SegmentLoad, key scenarios.PhaseKey) string {
	if len(others) == 0 || index > len(loads) {
		return ""
	}
	mine := loads[index-1].Phases[key]
	var theirs int64
	t0 := ph.Start
	for _, o := range others {
		if o.index <= len(loads) {
			theirs += loads[o.index-1].Phases[key]
		}
		if o.ph.Start.Before(t0) {
			t0 = o.ph.Start
		}
	}
	if mine == 0 || theirs == 0 {
		return ""
	}
	answered := map[int]int64{} // the others' answers by wall second
	for _, o := range others {
		for k, n := range answersBySecond(o.ph, t0) {
			answered[k] += n
		}
	}
	own := answersBySecond(ph, t0)
	first := wallSecond(ph.Start, 0, t0)
	last := first + int(ph.Elapsed/time.Second) - 1
	var worst, cur darkStretch
	for k := first; k <= last+1; k++ {
		if k > last || own[k] > 0 {
			if cur.expected > worst.expected {
				worst = cur
			}
			cur = darkStretch{}
			continue
		}
		if answered[k] > 0 {
			cur.seconds++
			cur.missed += answered[k]
			cur.expected += float64(answered[k]) * float64(mine) / float64(theirs)
		}
	}
	if worst.seconds < minDarkSeconds || worst.expected < minDarkAnswers {
		return ""
	}
	why := fmt.Sprintf("no answer in %d s of phase %q while the other segments had %d", worst.seconds, ph.Name, worst.missed)
	if e := errorSummary(ph.Errors); e != "" {
		why += "; its errors: " + e
	}
	return why
}

// darkStretch is an unbroken run of seconds in which a segment got no
// answer: how many of them the others were answered in, with how many
// answers, and how many of those the segment's share would have had.
type darkStretch struct {
	seconds  int
	missed   int64
	expected float64
}

// answersBySecond counts a phase's succeeded requests by second of the
// wall clock from t0.
func answersBySecond(ph *PhaseResult, t0 time.Time) map[int]int64 {
	out := map[int]int64{}
	for _, s := range ph.Series {
		if n := s.Completed - s.Errors; n > 0 {
			out[wallSecond(ph.Start, s.At, t0)] += n
		}
	}
	return out
}

// wallSecond is the second from t0 that point at of a phase started at
// start overlaps most, as mergeSeries aligns them.
func wallSecond(start time.Time, at int, t0 time.Time) int {
	return at + int(math.Round(start.Sub(t0).Seconds()))
}

// errorSummary is e.g. "timeout 40, connect 3": the kinds counted.
func errorSummary(e ErrorCounts) string {
	var parts []string
	e.Each(func(kind string, n int64) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", kind, n))
		}
	})
	return strings.Join(parts, ", ")
}

// markLate notes the segments that started more than MergeTolerance after
// their planned start, or after the earliest segment when none was
// planned, and those given another --start-at than segment 1's.
func markLate(segs []MergedSegment) {
	var first *MergedSegment
	var plan *time.Time
	for i := range segs {
		s := &segs[i]
		if s.Missing || s.NothingToSend {
			continue
		}
		if first == nil || s.Start.Before(first.Start) {
			first = s
		}
		if plan == nil && s.StartAt != nil {
			plan = s.StartAt
		}
	}
	for i := range segs {
		s := &segs[i]
		if s.Missing || s.NothingToSend {
			continue
		}
		switch {
		case plan != nil && (s.StartAt == nil || !s.StartAt.Equal(*plan)):
			s.Late = fmt.Sprintf("was given another start (--start-at %s) than the others (%s)", startAtText(s.StartAt), plan.UTC().Format(time.RFC3339Nano))
		case s.StartAt != nil && s.Skew > MergeTolerance:
			s.Late = fmt.Sprintf("started %s after --start-at", s.Skew.Round(100*time.Millisecond))
		case s.StartAt == nil && s.Start.Sub(first.Start) > MergeTolerance:
			s.Late = fmt.Sprintf("started %s after segment %d/%d", s.Start.Sub(first.Start).Round(100*time.Millisecond), first.Index, len(segs))
		}
	}
}

func startAtText(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// NoteClocksAhead marks the segments whose part ended after now, the
// merging machine's time, by more than MergeTolerance: their clock is
// ahead, so their start times (and --start-at) were not the others'.
func (mi *MergeInfo) NoteClocksAhead(now time.Time) {
	for i := range mi.Segments {
		s := &mi.Segments[i]
		if s.Missing || s.Late != "" {
			continue
		}
		if ahead := s.End.Sub(now); ahead > MergeTolerance {
			s.Late = fmt.Sprintf("ended %s in the future of the merging machine's clock: its clock is ahead, and its start was not the others'", ahead.Round(100*time.Millisecond))
		}
	}
}
