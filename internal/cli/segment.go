package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// segmentOptions are run's flags for distributed runs (SPEC §9).
type segmentOptions struct {
	segment string // "I/N"; "" = the whole run
	startAt string // RFC 3339 time or +DURATION; "" = at once
	sched   schedule
}

func (o *segmentOptions) register(fs *flag.FlagSet, env Env) {
	fs.StringVar(&o.segment, "segment", envDefault(env, "segment", ""),
		"run only segment `I/N` of the load (concurrency, rates and request counts split N ways) and write it as a part for loadgate merge")
	fs.StringVar(&o.startAt, "start-at", envDefault(env, "start-at", ""),
		"wait until `TIME` before the first phase, to start the segments together: RFC 3339 (2026-05-01T12:00:00Z) or +DURATION from now (+30s)")
}

// maxStartDelay bounds --start-at: a start a day away is a typo (a wrong
// date or zone), not a plan, and would leave a CI job waiting until it is
// killed.
const maxStartDelay = 24 * time.Hour

// schedule is what segmentOptions ask for.
type schedule struct {
	seg scenarios.Segment
	// part: --segment or --start-at was given, so results.json carries
	// a segment block and the scenario source, and `loadgate merge` can
	// read it. A run given only --start-at is segment 1/1 of itself.
	part    bool
	startAt time.Time // zero: start at once
}

// parse checks the flags before any scenario is loaded and keeps the
// schedule; +DURATION counts from now.
func (o *segmentOptions) parse(now time.Time) error {
	s := schedule{seg: scenarios.Whole}
	if o.segment != "" {
		seg, err := scenarios.ParseSegment(o.segment)
		if err != nil {
			return fmt.Errorf("--segment: %w", err)
		}
		s.seg, s.part = seg, true
	}
	if o.startAt != "" {
		at, err := parseStartAt(o.startAt, now)
		if err != nil {
			return fmt.Errorf("--start-at: %w", err)
		}
		s.startAt, s.part = at, true
	}
	o.sched = s
	return nil
}

// schedule is the parsed schedule; the whole run, at once, when the flags
// were not registered (demo).
func (o *segmentOptions) schedule() schedule {
	if o.sched.seg.Count == 0 {
		return schedule{seg: scenarios.Whole}
	}
	return o.sched
}

// split reports whether the segment is a share of a larger run, whose
// thresholds only loadgate merge can judge.
func (s schedule) split() bool { return s.seg.Count > 1 }

// parseStartAt reads an RFC 3339 time (fractional seconds allowed) or
// +DURATION, counted from now. A time in the past is accepted: the run
// then starts at once and records how late it was.
func parseStartAt(v string, now time.Time) (time.Time, error) {
	var at time.Time
	if rest, ok := strings.CutPrefix(v, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return time.Time{}, fmt.Errorf("%q: want +DURATION such as +30s or +2m", v)
		}
		at = now.Add(d)
	} else {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: want an RFC 3339 time such as 2026-05-01T12:00:00Z, or +DURATION such as +30s", v)
		}
		at = t
	}
	if at.Sub(now) > maxStartDelay {
		return time.Time{}, fmt.Errorf("%q is more than a day ahead, which is taken for a mistake (a wrong date or time zone?)", v)
	}
	return at, nil
}

// waitUntil blocks until at or until ctx ends, whichever comes first.
func waitUntil(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// lateWarning is how late a segment may start before it is told that the
// segments may not have overlapped as planned.
const lateWarning = time.Second

// await waits for --start-at and returns the skew: when the wait ended
// minus the planned time. An interrupt ends the wait at once; the caller
// then finds ctx done and writes what it has.
func (s schedule) await(ctx context.Context, w io.Writer) time.Duration {
	if s.startAt.IsZero() {
		return 0
	}
	if d := time.Until(s.startAt); d > 0 {
		fmt.Fprintf(w, "loadgate: segment %s waits until %s (%s from now)\n",
			s.seg, s.startAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), d.Round(time.Millisecond))
	}
	if waitUntil(ctx, s.startAt) != nil {
		return 0
	}
	skew := time.Since(s.startAt)
	if skew > lateWarning {
		fmt.Fprintf(w, "loadgate: segment %s started %s after --start-at: the segments may not have run side by side\n",
			s.seg, skew.Round(time.Millisecond))
	}
	return skew
}

// splitPlan gives p its segment's share (scenarios.Split): the load, the
// rows of unique data sources, and only the cases with a share of a
// measured phase. empty is true when no case is left; notes say what was
// dropped and, as Split decides it, why.
func splitPlan(p plan, seg scenarios.Segment) (part plan, empty bool, notes []string, err error) {
	if seg.Count <= 1 {
		return p, false, nil, nil
	}
	sc, droppedCases := scenarios.Split(p.scenario, seg)
	dropped := make([]string, len(droppedCases))
	for i, d := range droppedCases {
		dropped[i] = fmt.Sprintf("case %q: %s", p.scenario.Cases[d.Case].ID, d.Why)
	}
	p.scenario = sc
	name := sc.Name
	if len(sc.Cases) == 0 {
		why := strings.Join(dropped, "; ")
		if len(dropped) > 1 {
			why = "no case has a share of its measured phases (" + why + ")"
		}
		return p, true, []string{fmt.Sprintf("segment %s of scenario %q has nothing to send: %s; writing an empty part", seg, name, why)}, nil
	}
	for _, d := range dropped {
		notes = append(notes, fmt.Sprintf("segment %s of scenario %q: %s; the case is left to the other segments", seg, name, d))
	}
	return p, false, notes, nil
}

// markPart turns the results document into a part: the segment block, and
// per scenario the source and variables that merge parses again. A part is
// uploaded and shared like any report (SPEC §10), so both are stored with
// the scenario's secrets redacted, by value: whatever name a variable has,
// its value is hidden when it reached a credential or was marked secret.
// Merge never sends a request, so a redacted header costs it nothing, and
// the scenario's hash is of the redacted file, so merge's check holds.
func (s schedule) markPart(run *results.Run, plans []plan, empty []bool, skew time.Duration) {
	if !s.part {
		return
	}
	info := &results.SegmentInfo{Index: s.seg.Index, Count: s.seg.Count}
	if !s.startAt.IsZero() {
		at := s.startAt
		info.StartAt, info.Skew = &at, skew
	}
	run.Segment = info
	for i, sr := range run.Scenarios {
		if i >= len(plans) {
			break
		}
		sc := plans[i].scenario
		sr.Source = sc.Redact(string(sc.Source))
		sr.Vars = make(map[string]string, len(sc.Vars))
		for k, v := range sc.Vars {
			sr.Vars[k] = sc.Redact(v)
		}
		sr.NothingToSend = empty[i]
	}
}
