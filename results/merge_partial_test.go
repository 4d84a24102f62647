package results

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// partialScenario has 4 workers for 10 s: over three segments 2, 1 and 1,
// so the shares are 50 %, 25 % and 25 %.
const partialScenario = `version: 1
name: lost
targets:
  - name: api
    http: { url: "http://127.0.0.1:9/" }
phases:
  - name: measured
    duration: 10s
    concurrency: 4
thresholds:
  - p99 < 1s
`

// partPhase is a segment's phase of partialScenario: perSecond answers in
// each of the seconds [from, to) of a 10 s phase started at start, except
// those of gaps, and a timeout in every other second.
func partPhase(start time.Time, workers int, perSecond int64, from, to int, gaps ...int) *PhaseResult {
	ph := &PhaseResult{Name: "measured", Concurrency: workers, Start: start, End: start.Add(10 * time.Second),
		Elapsed: 10 * time.Second, Ended: EndDuration, Latency: NewHistogram(), Connect: NewHistogram()}
	for s := range 10 {
		pt := Second{At: s}
		if s >= from && s < to && !slices.Contains(gaps, s) {
			pt.Completed = perSecond
			for range perSecond {
				ph.Latency.Record(time.Millisecond)
			}
		} else {
			pt.Completed, pt.Errors = 1, 1 // a timeout
			ph.Errors.Timeout++
			ph.Failed++
		}
		ph.Series = append(ph.Series, pt)
		ph.Requests += pt.Completed
	}
	ph.Succeeded = ph.Requests - ph.Failed
	return ph
}

func lostPart(t *testing.T, index int, start time.Time, ph *PhaseResult) Part {
	t.Helper()
	return partOf(t, partialScenario, index, start, ph)
}

func partOf(t *testing.T, source string, index int, start time.Time, ph *PhaseResult) Part {
	t.Helper()
	sc, err := scenarios.Parse("lost.yaml", []byte(source), scenarios.LoadOptions{JudgeOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	at := start
	return Part{Name: "part" + string(rune('0'+index)) + ".json", Run: &Run{
		Schema: Schema, Start: start, End: start.Add(10 * time.Second), Host: Host{Hostname: "lg" + string(rune('0'+index))},
		Segment: &SegmentInfo{Index: index, Count: 3, StartAt: &at},
		Scenarios: []*ScenarioRun{{Name: "lost", Hash: sc.Hash, Source: source, Start: start, End: start.Add(10 * time.Second),
			Cases: []*CaseRun{{ID: sc.Cases[0].ID, Target: "api", Phases: []*PhaseResult{ph}}}}},
	}}
}

func TestMergeNamesMissingAndIncompleteSegments(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	full := func(i, workers int) Part { return lostPart(t, i, t0, partPhase(t0, workers, 50*int64(workers), 0, 10)) }
	interrupted := full(2, 1)
	interrupted.Run.Interrupted = true
	short := full(3, 1)
	short.Run.Scenarios[0].Cases[0].Phases[0].Elapsed = 4 * time.Second
	short.Run.Scenarios[0].Cases[0].Phases[0].Ended = EndInterrupted
	slow := func(i int) Part { return lostPart(t, i, t0, partPhase(t0, 1, 1, 0, 10)) } // one answer a second
	late := full(3, 1)
	late.Run.Segment.Skew = 2500 * time.Millisecond
	late.Run.Start = t0.Add(2500 * time.Millisecond)
	otherPlan := full(3, 1)
	otherAt := t0.Add(time.Minute)
	otherPlan.Run.Segment.StartAt = &otherAt
	for _, tc := range []struct {
		name        string
		parts       []Part
		partial     string // PartialText
		skew        string // SkewText
		wantJudged  bool
		wantShares  []string
		wantMissing []int
	}{
		{"all there", []Part{full(1, 2), full(2, 1), full(3, 1)}, "", "", true, []string{"50 %", "25 %", "25 %"}, nil},
		{"one missing", []Part{full(1, 2), full(3, 1)}, "segment 2/3 missing: 25 % of the load", "", false, nil, []int{2}},
		{"the largest missing", []Part{full(3, 1), full(2, 1)}, "segment 1/3 missing: 50 % of the load", "", false, nil, []int{1}},
		{"two missing", []Part{full(2, 1)}, "segment 1/3 missing: 50 % of the load; segment 3/3 missing: 25 % of the load", "", false, nil, []int{1, 3}},
		{"interrupted", []Part{full(1, 2), interrupted, full(3, 1)}, "segment 2/3 incomplete (interrupted): 25 % of the load", "", false, nil, nil},
		{"ran shorter", []Part{full(1, 2), full(2, 1), short}, `segment 3/3 incomplete (ran 4s of phase "measured", the other segments 10s): 25 % of the load`, "", false, nil, nil},
		{"cut off after 4 s", []Part{full(1, 2), lostPart(t, 2, t0, partPhase(t0, 1, 50, 0, 4)), full(3, 1)},
			`segment 2/3 incomplete (no answer in 6 s of phase "measured" while the other segments had 900; its errors: timeout 6): 25 % of the load`, "", false, nil, nil},
		{"cut off for 3 s, then back", []Part{full(1, 2), full(2, 1), lostPart(t, 3, t0, partPhase(t0, 1, 50, 0, 10, 4, 5, 6))},
			`segment 3/3 incomplete (no answer in 3 s of phase "measured" while the other segments had 450; its errors: timeout 3): 25 % of the load`, "", false, nil, nil},
		{"answers every other second (long requests) is not a lost link", []Part{full(1, 2), full(2, 1), lostPart(t, 3, t0, partPhase(t0, 1, 50, 0, 10, 1, 3, 5, 7, 9))}, "", "", true, nil, nil},
		{"one second without answers is not a lost link", []Part{full(1, 2), full(2, 1), lostPart(t, 3, t0, partPhase(t0, 1, 50, 0, 10, 5))}, "", "", true, nil, nil},
		{"slow, not lost: one answer a second, none in some", []Part{slow(1), slow(2), lostPart(t, 3, t0, partPhase(t0, 1, 1, 0, 7))}, "", "", true, nil, nil},
		{"late start", []Part{full(1, 2), full(2, 1), late}, "", "segment 3/3 started 2.5s after --start-at", true, nil, nil},
		{"another --start-at", []Part{full(1, 2), full(2, 1), otherPlan}, "",
			"segment 3/3 was given another start (--start-at 2026-05-01T12:01:00Z) than the others (2026-05-01T12:00:00Z)", true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := MergeParts(tc.parts)
			if err != nil {
				t.Fatal(err)
			}
			mi := m.Info
			if got := mi.PartialText(); got != tc.partial {
				t.Errorf("partial %q, want %q", got, tc.partial)
			}
			if got := mi.SkewText(); got != tc.skew {
				t.Errorf("skew %q, want %q", got, tc.skew)
			}
			if mi.NotJudged() == tc.wantJudged {
				t.Errorf("not judged %v, want %v", mi.NotJudged(), !tc.wantJudged)
			}
			if len(mi.Segments) != 3 {
				t.Fatalf("%d segments listed, want 3", len(mi.Segments))
			}
			for i, want := range tc.wantShares {
				if got := Percent(mi.Segments[i].Share); got != want {
					t.Errorf("segment %d share %s, want %s", i+1, got, want)
				}
			}
			for _, i := range tc.wantMissing {
				if s := mi.Segments[i-1]; !s.Missing || s.File != "" || s.Requests != 0 {
					t.Errorf("segment %d: %+v, want it missing", i, s)
				}
			}
			mi.AllowPartial = true
			if mi.NotJudged() {
				t.Error("--allow-partial still leaves the merge not judged")
			}
		})
	}
}

// A merge lacking a segment is never passed, also when read back; judged
// anyway, it passes or fails on its verdicts.
func TestPartialMergeIsNeverPassedUnlessAllowed(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	m, err := MergeParts([]Part{lostPart(t, 1, t0, partPhase(t0, 2, 100, 0, 10))})
	if err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		m.Info.AllowPartial = allow
		var inputs []ScenarioInput
		for _, ms := range m.Scenarios {
			inputs = append(inputs, ScenarioInput{Result: ms.Result, Scenario: ms.Scenario})
		}
		run := NewRun(Meta{Start: m.Start, End: m.End, Merged: m.Info}, inputs)
		if run.Passed != allow {
			t.Errorf("allow %v: passed %v", allow, run.Passed)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, run); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `"missing": true`) {
			t.Errorf("results.json does not say a segment is missing:\n%s", b.String())
		}
		back, err := ReadRun(&b)
		if err != nil {
			t.Fatal(err)
		}
		if back.Passed != allow || back.Merged.PartialText() != "segment 2/3 missing: 25 % of the load; segment 3/3 missing: 25 % of the load" {
			t.Errorf("read back: passed %v, partial %q", back.Passed, back.Merged.PartialText())
		}
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		share float64
		want  string
	}{{1.0 / 3, "33 %"}, {0.5, "50 %"}, {1, "100 %"}, {1.0 / 12, "8.3 %"}, {0.004, "0.4 %"}, {0, "0 %"}} {
		if got := Percent(tc.share); got != tc.want {
			t.Errorf("Percent(%v) = %q, want %q", tc.share, got, tc.want)
		}
	}
}

// A segment with no share of the load takes nothing from the whole when
// its part is missing; parts interrupted before any scenario began leave
// the split unknown, taken as even, and the merge is still partial.
func TestMergeWithoutShares(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	two := strings.Replace(partialScenario, "concurrency: 4", "concurrency: 2", 1)
	m, err := MergeParts([]Part{partOf(t, two, 1, t0, partPhase(t0, 1, 50, 0, 10)), partOf(t, two, 2, t0, partPhase(t0, 1, 50, 0, 10))})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Info.Segments[2]; !s.Missing || s.Share != 0 || m.Info.NotJudged() {
		t.Errorf("segment 3/3 of concurrency 2: %+v, not judged %v; want missing with no share, and judged", s, m.Info.NotJudged())
	}
	waited := lostPart(t, 1, t0, partPhase(t0, 2, 100, 0, 10))
	waited.Run.Interrupted, waited.Run.Scenarios = true, nil
	m, err = MergeParts([]Part{waited})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Info.PartialText(), "segment 1/3 incomplete (interrupted): 33 % of the load; segment 2/3 missing: 33 % of the load; segment 3/3 missing: 33 % of the load"; got != want {
		t.Errorf("partial %q, want %q", got, want)
	}
}

// A segment that sent all its requests before the others' duration ran
// out is complete; one cut short by the run's time limit is not.
func TestShorterOnlyWhenCutShort(t *testing.T) {
	done := &PhaseResult{Name: "p", Elapsed: time.Second, Ended: EndRequests}
	others := []segPhase{{2, &PhaseResult{Name: "p", Elapsed: 30 * time.Second, Ended: EndDuration}}}
	if why := shorter(done, others); why != "" {
		t.Errorf("a part that sent its requests: %q", why)
	}
	cut := &PhaseResult{Name: "p", Elapsed: time.Second, Ended: EndInterrupted}
	if why := shorter(cut, others); why != `ran 1s of phase "p", the other segments 30s` {
		t.Errorf("an interrupted phase: %q", why)
	}
}
