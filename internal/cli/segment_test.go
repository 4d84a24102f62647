package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/scenarios"
)

func TestParseStartAt(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in      string
		want    time.Time
		wantErr string
	}{
		{"+30s", now.Add(30 * time.Second), ""},                           // relative to now
		{"+0s", now, ""},                                                  // at once
		{"+1m30s", now.Add(90 * time.Second), ""},                         // any Go duration
		{"2026-05-01T12:05:00Z", now.Add(5 * time.Minute), ""},            // absolute, UTC
		{"2026-05-01T14:05:00+02:00", now.Add(5 * time.Minute), ""},       // absolute, with a zone
		{"2026-05-01T12:00:00.250Z", now.Add(250 * time.Millisecond), ""}, // fractional seconds
		{"2026-05-01T11:00:00Z", now.Add(-time.Hour), ""},                 // past: start at once, record the skew
		{"+-5s", time.Time{}, "want +DURATION"},                           // negative
		{"+soon", time.Time{}, "want +DURATION"},                          // not a duration
		{"30s", time.Time{}, "want an RFC 3339 time"},                     // the + is required
		{"2026-05-01 12:05", time.Time{}, "want an RFC 3339 time"},        // not RFC 3339
		{"2026-05-03T12:00:00Z", time.Time{}, "more than a day ahead"},    // a wrong date
		{"+25h", time.Time{}, "more than a day ahead"},                    // too far
		{"2026-05-02T11:59:59Z", now.Add(24*time.Hour - time.Second), ""}, // just within a day
	} {
		got, err := parseStartAt(tc.in, now)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case !got.Equal(tc.want):
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSplitPlan(t *testing.T) {
	sc, err := scenarios.Parse("s.yaml", []byte(`version: 1
name: split
targets:
  - name: t
    http: { url: "http://127.0.0.1:1/" }
matrix:
  c: [1, 8]
phases:
  - { name: warm, warmup: true, duration: 1s, concurrency: 1 }
  - { name: measured, duration: 1s, concurrency: "${c}" }
`), scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := plan{scenario: sc}

	// Segment 1 of 2 runs both cases; segment 2 only c=8: its share of
	// c=1 is no worker, and the warm-up alone would measure nothing.
	part, empty, notes, err := splitPlan(p, scenarios.Segment{Index: 1, Count: 2})
	if err != nil || empty || len(notes) != 0 || len(part.scenario.Cases) != 2 {
		t.Fatalf("segment 1/2: %d cases, empty %v, notes %q, err %v", len(part.scenario.Cases), empty, notes, err)
	}
	part, empty, notes, err = splitPlan(p, scenarios.Segment{Index: 2, Count: 2})
	if err != nil || empty || len(part.scenario.Cases) != 1 || part.scenario.Cases[0].ID != "t c=8" {
		t.Fatalf("segment 2/2: cases %v, empty %v, err %v", part.scenario.Cases, empty, err)
	}
	// The warm-up's single worker went to segment 1.
	if ph := part.scenario.Cases[0].Phases; len(ph) != 1 || ph[0].Name != "measured" || ph[0].Concurrency != 4 {
		t.Errorf("segment 2/2 of case c=8: phases %+v, want measured with 4 of the 8 workers", ph)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `case "t c=1": phase "measured" has concurrency 1`) {
		t.Errorf("notes %q", notes)
	}
	if len(sc.Cases) != 2 || sc.Cases[1].Phases[1].Concurrency != 8 {
		t.Error("splitPlan changed the scenario it was given")
	}

	// Nine segments leave the ninth nothing at all.
	_, empty, notes, err = splitPlan(p, scenarios.Segment{Index: 9, Count: 9})
	if err != nil || !empty || len(notes) != 1 || !strings.HasPrefix(notes[0], `segment 9/9 of scenario "split" has nothing to send: no case has a share`) {
		t.Errorf("segment 9/9: empty %v, notes %q, err %v", empty, notes, err)
	}
}

// TestSplitPlanUniqueData checks that the parts of a run hand out every
// row of a unique source exactly once between them, and leave a
// sequential source whole.
func TestSplitPlanUniqueData(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("id\n")
	for i := range 10 {
		fmt.Fprintf(&csv, "%d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(filepath.Join(dir, "s.yaml"), []byte(`version: 1
name: unique
data:
  once: { file: rows.csv, mode: unique }
  again: { file: rows.csv }
targets:
  - name: t
    http:
      url: "http://127.0.0.1:1"
      flow: [{ name: get, path: "/{{once.id}}/{{again.id}}" }]
phases:
  - { name: measured, duration: 1s, concurrency: 3 }
`), scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i := 1; i <= 3; i++ {
		part, _, _, err := splitPlan(plan{scenario: sc}, scenarios.Segment{Index: i, Count: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range part.scenario.Data[0].Rows {
			seen[row[0]]++
		}
		if n := len(part.scenario.Data[1].Rows); n != 10 {
			t.Errorf("segment %d/3: the sequential source has %d rows, want all 10", i, n)
		}
	}
	for i := range 10 {
		if n := seen[strconv.Itoa(i)]; n != 1 {
			t.Errorf("row %d is in %d parts, want exactly 1", i, n)
		}
	}
	if len(sc.Data[0].Rows) != 10 {
		t.Error("splitPlan changed the data of the scenario it was given")
	}
}

const durationScenario = `version: 1
name: small
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - { name: measured, duration: 200ms, concurrency: 2 }
thresholds:
  - rps > 1000000
`

// A share of the load cannot fail the whole test's thresholds: the part
// exits 0, says why, and keeps no verdicts; an empty share writes an empty
// part, which merge accepts.
func TestSegmentPartsExit0AndEmptyShareWritesEmptyPart(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, durationScenario)
	dirs := make([]string, 3)
	for i := range dirs {
		dirs[i] = t.TempDir()
		r := invoke(t, context.Background(), map[string]string{"LOADGATE_SEGMENT": []string{"1/3", "2/3", "3/3"}[i]},
			"run", "--no-progress", "-o", dirs[i], "--var", "host="+srv.HTTPAddr(), path)
		if r.code != ExitOK {
			t.Fatalf("segment %d/3: exit %d\n%s\n%s", i+1, r.code, r.stdout, r.stderr)
		}
		part := readRun(t, filepath.Join(dirs[i], "results.json"))
		if part.Segment == nil || part.Segment.Index != i+1 || part.Segment.Count != 3 {
			t.Fatalf("segment %d/3: segment block %+v", i+1, part.Segment)
		}
		sr := part.Scenarios[0]
		if sr.Source != durationScenario || sr.Vars["host"] != srv.HTTPAddr() {
			t.Errorf("segment %d/3: source or vars missing from the part", i+1)
		}
		if i < 2 {
			if !strings.Contains(r.stdout, "segment "+part.Segment.String()+": thresholds are judged by loadgate merge") {
				t.Errorf("segment %d/3: no note on thresholds:\n%s", i+1, r.stdout)
			}
			if len(sr.Cases) != 1 || len(sr.Cases[0].Verdicts) != 0 || sr.NothingToSend {
				t.Errorf("segment %d/3: want one case without verdicts, got %+v", i+1, sr.Cases)
			}
			continue
		}
		want := `segment 3/3 of scenario "small" has nothing to send: case "hello": phase "measured" has concurrency 2`
		if !strings.Contains(r.stdout, want) {
			t.Errorf("segment 3/3 does not say it has nothing to send:\n%s", r.stdout)
		}
		if !sr.NothingToSend || len(sr.Cases) != 0 || !part.Passed {
			t.Errorf("segment 3/3: want an empty part, got nothing_to_send %v, %d cases", sr.NothingToSend, len(sr.Cases))
		}
	}
	out := t.TempDir()
	r := invoke(t, context.Background(), nil, "merge", "-o", out, dirs[2], dirs[0], dirs[1])
	if r.code != ExitFailed {
		t.Fatalf("merge: exit %d, want 1 (rps > 1000000 fails on the whole)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "loadgate merge: 3 segments of small") || !strings.Contains(r.stdout, "(1 had nothing to send)") {
		t.Errorf("merge headline:\n%s", r.stdout)
	}
	merged := readRun(t, filepath.Join(out, "results.json"))
	c := merged.Scenarios[0].Cases[0]
	if c.Phases[0].Concurrency != 2 || len(c.Verdicts) != 1 || merged.Passed || merged.Segment != nil {
		t.Errorf("merged: concurrency %d, verdicts %+v, passed %v", c.Phases[0].Concurrency, c.Verdicts, merged.Passed)
	}
}

// SIGINT while waiting for --start-at ends the run at once, with exit 130
// and a part marked interrupted.
func TestInterruptWhileWaitingForStartAt(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	r := invoke(t, ctx, nil, "run", "--no-progress", "--segment", "1/2", "--start-at", "+1m", "-o", out,
		"--var", "host="+srv.HTTPAddr(), writeScenario(t, durationScenario))
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the interrupt took %v to end the wait", took)
	}
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, want 130\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "segment 1/2 waits until") {
		t.Errorf("no waiting line:\n%s", r.stdout)
	}
	part := readRun(t, filepath.Join(out, "results.json"))
	if !part.Interrupted || part.Segment == nil || part.Segment.StartAt == nil {
		t.Errorf("part: interrupted %v, segment %+v", part.Interrupted, part.Segment)
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Errorf("%d requests sent before the start time", n)
	}
}

// A start time in the past starts at once and records how late it was.
func TestStartAtInThePastRecordsSkew(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	out := t.TempDir()
	past := time.Now().Add(-3 * time.Second).UTC().Format(time.RFC3339Nano)
	r := invoke(t, context.Background(), map[string]string{"LOADGATE_START_AT": past},
		"run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), writeScenario(t, strings.Replace(durationScenario, "rps > 1000000", "rps > 0", 1)))
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	part := readRun(t, filepath.Join(out, "results.json"))
	seg := part.Segment
	if seg == nil || seg.Count != 1 || seg.Skew < 3*time.Second || seg.Skew > 30*time.Second {
		t.Fatalf("segment block %+v, want 1/1 with a skew of about 3s", seg)
	}
	if !strings.Contains(r.stdout, "after --start-at") {
		t.Errorf("no warning about the late start:\n%s", r.stdout)
	}
	if len(part.Scenarios[0].Cases[0].Verdicts) != 1 {
		t.Error("an undivided run (1/1) must keep its verdicts")
	}
}

func TestSegmentUsageErrorsSendNothing(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--segment", "5/4"}, "--segment: "},
		{[]string{"--segment", "two"}, "want I/N"},
		{[]string{"--start-at", "noon"}, "--start-at: "},
		{[]string{"--start-at", "+48h"}, "more than a day ahead"},
	} {
		args := append([]string{"run", "--no-progress", "-o", t.TempDir(), "--var", "host=" + srv.HTTPAddr()}, tc.args...)
		if !strings.HasSuffix(args[len(args)-1], ".yaml") {
			args = append(args, writeScenario(t, durationScenario))
		}
		r := invoke(t, context.Background(), nil, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if n := srv.Stats().Requests; n != 0 {
		t.Errorf("usage errors sent %d requests", n)
	}
}

// uniqueScenario draws one row of a unique six-row source per iteration
// and sends its id; running out of rows ends each phase, long before its
// duration.
const uniqueScenario = `version: 1
name: rows
data:
  users: { file: users.csv, mode: unique, on_exhausted: stop }
targets:
  - name: api
    http:
      url: "http://${host}"
      flow: [{ name: get, path: "/?user={{users.id}}" }]
phases:
  - %s
`

// TestSegmentsUseTheRowsOfOneMachine runs every segment of a run against
// a server that records the rows it was sent: between them the parts use
// each row once, and a part without a share of the load uses none.
func TestSegmentsUseTheRowsOfOneMachine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase string
		parts int
		want  []int // rows used per part
	}{
		{"concurrency 2 over 3 parts", "{ name: m, duration: 30s, concurrency: 2, requests: 12 }", 3, []int{3, 3, 0}},
		// Workers 2 and 1; the rows running out ends the phase.
		{"concurrency 3 over 2 parts", "{ name: m, duration: 30s, concurrency: 3 }", 2, []int{4, 2}},
		// Requests 6 and 6 (for workers 2 and 1): the iterations govern.
		{"requests over 2 parts", "{ name: m, duration: 30s, concurrency: 3, requests: 12 }", 2, []int{3, 3}},
		{"rate over 3 parts", "{ name: m, duration: 30s, rate: 300, requests: 6 }", 3, []int{2, 2, 2}},
		{"one machine", "{ name: m, duration: 30s, concurrency: 2, requests: 12 }", 1, []int{6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[string]int{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen[r.URL.Query().Get("user")]++
				mu.Unlock()
			}))
			defer srv.Close()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte("id\n1\n2\n3\n4\n5\n6\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(path, fmt.Appendf(nil, uniqueScenario, tc.phase), 0o644); err != nil {
				t.Fatal(err)
			}
			var used []int
			for i := 1; i <= tc.parts; i++ {
				mu.Lock()
				before := len(seen)
				mu.Unlock()
				r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", t.TempDir(),
					"--segment", fmt.Sprintf("%d/%d", i, tc.parts), "--var", "host="+srv.Listener.Addr().String(), path)
				if r.code != ExitOK {
					t.Fatalf("segment %d/%d: exit %d\n%s\n%s", i, tc.parts, r.code, r.stdout, r.stderr)
				}
				mu.Lock()
				used = append(used, len(seen)-before)
				mu.Unlock()
			}
			if !slices.Equal(used, tc.want) {
				t.Errorf("rows used per part %v, want %v", used, tc.want)
			}
			for id := 1; id <= 6; id++ {
				if n := seen[strconv.Itoa(id)]; n != 1 {
					t.Errorf("row %d was sent %d times, want once", id, n)
				}
			}
		})
	}
}
