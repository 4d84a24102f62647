package results

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

// latencyStream draws n latencies from a mix of a fast mode and a slow
// tail, so that high percentiles fall in sparse buckets where a lossy
// merge would show.
func latencyStream(r *rand.Rand, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		us := 50 + r.ExpFloat64()*400
		if r.IntN(100) == 0 {
			us = 20_000 + r.Float64()*2_000_000
		}
		out[i] = time.Duration(us * float64(time.Microsecond))
	}
	return out
}

// The merged percentiles of a stream split over segments equal those of
// the unsplit stream exactly: HDR histograms of one precision merge
// without loss, also through the results document's encoding.
func TestMergedPercentilesEqualUnsplitStream(t *testing.T) {
	quantiles := []float64{50, 90, 99, 99.9, 100}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		stream := latencyStream(r, 1+r.IntN(20_000))
		parts := 1 + r.IntN(8)
		whole := NewHistogram()
		phases := make([]*PhaseResult, parts)
		for i := range phases {
			phases[i] = &PhaseResult{Name: "measured", Latency: NewHistogram(), Connect: NewHistogram()}
		}
		for _, d := range stream {
			whole.Record(d)
			p := phases[r.IntN(parts)] // random, uneven shares; some may stay empty
			p.Latency.Record(d)
			p.Requests++
		}
		for i, p := range phases {
			phases[i] = roundTrip(t, p)
		}
		merged := mergePhase(phases, nil)
		if merged.Requests != int64(len(stream)) || merged.Latency.Count() != int64(len(stream)) {
			t.Fatalf("seed %d: merged %d requests, %d samples; want %d", seed, merged.Requests, merged.Latency.Count(), len(stream))
		}
		for _, q := range quantiles {
			if got, want := merged.Latency.Quantile(q), whole.Quantile(q); got != want {
				t.Errorf("seed %d, %d parts: p%v = %v, unsplit %v", seed, parts, q, got, want)
			}
		}
		if got, want := merged.Latency.Max(), whole.Max(); got != want {
			t.Errorf("seed %d: max = %v, unsplit %v", seed, got, want)
		}
	}
}

// roundTrip passes a phase through JSON as a part file would.
func roundTrip(t *testing.T, p *PhaseResult) *PhaseResult {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out PhaseResult
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestUnionElapsed(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, tc := range []struct {
		name  string
		spans []span
		want  time.Duration
	}{
		{"one segment: its own wall time", []span{{at(0), 10 * time.Second}}, 10 * time.Second},
		{"started together: the longest", []span{{at(0), 10 * time.Second}, {at(0), 9 * time.Second}}, 10 * time.Second},
		{"one 2s late: the union", []span{{at(0), 10 * time.Second}, {at(2000), 10 * time.Second}}, 12 * time.Second},
		{"late one listed first", []span{{at(2000), 10 * time.Second}, {at(0), 10 * time.Second}}, 12 * time.Second},
		{"one after the other with a gap: the sum, not the gap", []span{{at(0), time.Second}, {at(60_000), time.Second}}, 2 * time.Second},
		{"no start times (old parts): the longest", []span{{time.Time{}, 3 * time.Second}, {time.Time{}, 4 * time.Second}}, 4 * time.Second},
		{"nested: the outer one", []span{{at(0), 10 * time.Second}, {at(1000), 5 * time.Second}}, 10 * time.Second},
	} {
		if got := unionElapsed(tc.spans); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMergeSeriesAlignsOnWallClockSeconds(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a := &PhaseResult{Start: t0, Series: []Second{
		{At: 0, Completed: 10, P50: 1 * time.Millisecond, P99: 5 * time.Millisecond, InFlight: 2},
		{At: 1, Completed: 10, Errors: 1, P99: 6 * time.Millisecond},
		{At: 2, Completed: 10, P99: 4 * time.Millisecond},
	}}
	// Started 1.4 s later: its first second overlaps the common second 1
	// by 0.6 s, second 2 by 0.4 s, so it goes to 1.
	b := &PhaseResult{Start: t0.Add(1400 * time.Millisecond), Series: []Second{
		{At: 0, Completed: 7, P50: 2 * time.Millisecond, P99: 3 * time.Millisecond, InFlight: 1},
		{At: 1, Completed: 7, Errors: 2, P99: 9 * time.Millisecond},
		{At: 2, Completed: 7, P99: 1 * time.Millisecond},
	}}
	got := mergeSeries([]*PhaseResult{b, a}, t0)
	want := []Second{
		{At: 0, Completed: 10, P50: 1 * time.Millisecond, P99: 5 * time.Millisecond, InFlight: 2},
		{At: 1, Completed: 17, Errors: 1, P50: 2 * time.Millisecond, P99: 6 * time.Millisecond, InFlight: 1},
		{At: 2, Completed: 17, Errors: 2, P99: 9 * time.Millisecond},
		{At: 3, Completed: 7, P99: 1 * time.Millisecond},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged series (-want +got):\n%s", diff)
	}
}

func TestMergeTrialsTrialByTrial(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a := &PhaseResult{Start: t0, Trials: []Trial{
		{Requests: 100, Failed: 1, Elapsed: time.Second, P50: time.Millisecond, P99: 4 * time.Millisecond},
		{Requests: 120, Elapsed: time.Second, P99: 2 * time.Millisecond},
	}}
	// Half a second late: each of its trials stretches the union by 0.5 s.
	b := &PhaseResult{Start: t0.Add(500 * time.Millisecond), Trials: []Trial{
		{Requests: 50, Dropped: 3, Elapsed: time.Second, P50: 2 * time.Millisecond, P99: 3 * time.Millisecond},
		{Requests: 30, Elapsed: time.Second, P99: 5 * time.Millisecond},
	}}
	trials, elapsed, ok := mergeTrials([]*PhaseResult{a, b})
	if !ok {
		t.Fatal("not merged")
	}
	want := []Trial{
		// 149 of the 150 succeeded: rps counts successes only.
		{Requests: 150, Failed: 1, Dropped: 3, Elapsed: 1500 * time.Millisecond, RPS: 149.0 / 1.5, P50: 2 * time.Millisecond, P99: 4 * time.Millisecond},
		{Requests: 150, Elapsed: 1500 * time.Millisecond, RPS: 100, P99: 5 * time.Millisecond},
	}
	if diff := cmp.Diff(want, trials); diff != "" {
		t.Errorf("trials (-want +got):\n%s", diff)
	}
	if elapsed != 3*time.Second {
		t.Errorf("phase elapsed %v, want the merged trials' 3s", elapsed)
	}
	b.Trials = b.Trials[:1] // interrupted
	if _, _, ok := mergeTrials([]*PhaseResult{a, b}); ok {
		t.Error("merged trials of segments that ran different numbers of them")
	}
}

func TestMergePhaseSumsCountersAndKeepsTheRate(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	mk := func(start time.Time, n int64, rate float64, cpu float64) *PhaseResult {
		lat := NewHistogram()
		for range n {
			lat.Record(time.Millisecond)
		}
		return &PhaseResult{
			Name: "measured", Concurrency: 0, Start: start, End: start.Add(10 * time.Second), Elapsed: 10 * time.Second,
			Counters: Counters{Requests: n, Succeeded: n - 1, Failed: 1, BytesSent: 10 * n,
				StatusCodes: map[string]int64{"200": n - 1, "503": 1}},
			Latency: lat, Connect: NewHistogram(), SendLag: NewHistogram(),
			Rate: &scenarios.Rate{From: rate, To: rate}, Dropped: 2, Generator: Generator{CPU: cpu},
			ByName: []*NamedResult{{Name: "get", Counters: Counters{Requests: n,
				StatusCodes: map[string]int64{"200": n}}, Latency: lat}},
		}
	}
	a, b := mk(t0, 30, 50, 0.2), mk(t0.Add(time.Second), 20, 50, 0.5)
	m := mergePhase([]*PhaseResult{a, b}, nil)
	if m.Rate == nil || m.Rate.To != 100 {
		t.Errorf("rate %+v, want the segments' shares added up to 100/s", m.Rate)
	}
	third := 100.0 / 3
	c := mk(t0, 1, third, 0)
	if m := mergePhase([]*PhaseResult{c, c, c}, &scenarios.Phase{Rate: scenarios.Rate{From: 100, To: 100}}); m.Rate.To != 100 {
		t.Errorf("rate %v, want the scenario's 100/s, not a sum of rounded thirds", m.Rate.To)
	}
	if m.Requests != 50 || m.Failed != 2 || m.BytesSent != 500 || m.Dropped != 4 {
		t.Errorf("counters: %+v dropped %d", m.Counters, m.Dropped)
	}
	if m.Elapsed != 11*time.Second || !m.Start.Equal(t0) || !m.End.Equal(t0.Add(11*time.Second)) {
		t.Errorf("wall time %v from %v to %v, want 11s", m.Elapsed, m.Start, m.End)
	}
	if m.Generator.CPU != 0.5 {
		t.Errorf("generator CPU %v, want the busier segment's", m.Generator.CPU)
	}
	if len(m.ByName) != 1 || m.ByName[0].Requests != 50 || m.ByName[0].Latency.Count() != 50 {
		t.Errorf("by name: %+v", m.ByName)
	}
	// Status codes add up like every other counter, through a part file.
	m = mergePhase([]*PhaseResult{roundTrip(t, a), roundTrip(t, b)}, nil)
	if diff := cmp.Diff(map[string]int64{"200": 48, "503": 2}, m.StatusCodes); diff != "" {
		t.Errorf("status codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"200": 50}, m.ByName[0].StatusCodes); diff != "" {
		t.Errorf("by name status codes (-want +got):\n%s", diff)
	}
}

func TestMergePartsRefusesPartsThatDoNotBelongTogether(t *testing.T) {
	part := func(i, n int, hash string, vars map[string]string) Part {
		return Part{Name: "p" + strings.Repeat("x", i) + ".json", Run: &Run{
			Schema: Schema, Segment: &SegmentInfo{Index: i, Count: n},
			Scenarios: []*ScenarioRun{{Name: "s", Hash: hash, Source: "version: 1", Vars: vars}},
		}}
	}
	vars := map[string]string{"host": "a"}
	noSeg := part(1, 2, "h", vars)
	noSeg.Run.Segment = nil
	noSource := part(2, 2, "h", vars)
	noSource.Run.Scenarios[0].Source = ""
	for _, tc := range []struct {
		name  string
		parts []Part
		want  string
	}{
		{"none", nil, "no parts"},
		{"not a part", []Part{noSeg, part(2, 2, "h", vars)}, `not a segment part`},
		{"counts differ", []Part{part(1, 2, "h", vars), part(2, 3, "h", vars)}, "parts of different runs"},
		{"duplicate", []Part{part(1, 2, "h", vars), part(1, 2, "h", vars), part(2, 2, "h", vars)}, "segment 1/2 is given twice"},
		{"different scenario file", []Part{part(1, 2, "h1", vars), part(2, 2, "h2", vars)}, "parts of different scenarios"},
		{"different variables", []Part{part(1, 2, "h", vars), part(2, 2, "h", map[string]string{"host": "b"})}, `host = "a" and "b"`},
		{"no source", []Part{part(1, 2, "h", vars), noSource}, "carries no source"},
	} {
		_, err := MergeParts(tc.parts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestSegmentInfoRoundTrips(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	run := &Run{Schema: Schema, Passed: true, Segment: &SegmentInfo{Index: 2, Count: 4, StartAt: &at, Skew: 1500 * time.Microsecond},
		Scenarios: []*ScenarioRun{{Name: "s", Cases: []*CaseRun{}, Source: "src", Vars: map[string]string{"k": "v"}, NothingToSend: true}}}
	var b bytes.Buffer
	if err := WriteJSON(&b, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"segment": {`, `"index": 2`, `"count": 4`, `"start_at": "2026-05-01T12:00:00Z"`, `"skew_ns": 1500000`, `"nothing_to_send": true`, `"source": "src"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("results.json lacks %s:\n%s", want, b.String())
		}
	}
	back, err := ReadRun(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(run.Segment, back.Segment); diff != "" || !back.Scenarios[0].NothingToSend {
		t.Errorf("segment block did not round-trip (-want +got):\n%s", diff)
	}
}
