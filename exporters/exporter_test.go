package exporters

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// readPoints reads a json-lines file.
func readPoints(t *testing.T, path string) []point {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []point
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p point
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("line %d is not a point: %v: %s", len(out)+1, err, sc.Text())
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A phase's updates, in a file: its start at zero, a tick, its end, each
// later than the one before even when the clock has not moved, every
// point with the phase's labels (the trial apart from the phase's name,
// the target of the case).
func TestObserverWritesEveryUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "points.jsonl")
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e, err := Open([]Spec{{Kind: KindJSONLines, Dest: path}}, Options{Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenarios.Scenario{Name: "shop", Cases: []scenarios.Case{{ID: "cart concurrency=4", Target: scenarios.Target{Name: "cart"}}}}
	o := e.Scenario(sc)
	r := &results.PhaseResult{Latency: results.NewHistogram()}
	s := results.Snapshot{Scenario: "shop", Case: "cart concurrency=4", Phase: "measured (trial 2/3)", Name: "measured", Label: "trial 2/3", Result: r}

	o.PhaseStarted(s)
	r.Requests, r.Succeeded = 7, 7
	r.Latency.Record(2 * time.Millisecond)
	s.InFlight = 3
	o.Progress(s)
	r.Requests, r.Succeeded = 9, 9
	o.PhaseDone(s, r)
	if msgs := e.Close(); len(msgs) != 0 {
		t.Fatalf("Close said %q, want nothing lost", msgs)
	}

	var requests []float64
	times := map[string]bool{}
	for _, p := range readPoints(t, path) {
		times[p.Time] = true
		want := map[string]string{"scenario": "shop", "target": "cart", "case": "cart concurrency=4", "phase": "measured", "trial": "2"}
		for k, v := range want {
			if p.Labels[k] != v {
				t.Fatalf("%s: label %s = %q, want %q (labels %v)", p.Name, k, p.Labels[k], v, p.Labels)
			}
		}
		if p.Name == MetricRequests {
			requests = append(requests, p.Value)
		}
	}
	if len(requests) != 3 || requests[0] != 0 || requests[1] != 7 || requests[2] != 9 {
		t.Errorf("requests over the updates = %v, want [0 7 9]", requests)
	}
	for _, ts := range []string{"2026-05-01T12:00:00Z", "2026-05-01T12:00:00.001Z", "2026-05-01T12:00:00.002Z"} {
		if !times[ts] {
			t.Errorf("no update at %s among %v: a series' samples must be at distinct, rising times", ts, times)
		}
	}
}

// An exporter that has nothing to export sends nothing, and a phase
// without a result (a snapshot from elsewhere) sends nothing either.
func TestObserverWithoutResult(t *testing.T) {
	path := filepath.Join(t.TempDir(), "points.jsonl")
	e, err := Open([]Spec{{Kind: KindJSONLines, Dest: path}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.Scenario(&scenarios.Scenario{Name: "s"}).Progress(results.Snapshot{Scenario: "s", Phase: "p"})
	if msgs := e.Close(); len(msgs) != 0 {
		t.Fatal(msgs)
	}
	if pts := readPoints(t, path); len(pts) != 0 {
		t.Fatalf("%d points, want none", len(pts))
	}
}

func TestOpenRefuses(t *testing.T) {
	good := Spec{Kind: KindJSONLines, Dest: filepath.Join(t.TempDir(), "ok.jsonl")}
	for _, bad := range []Spec{
		{Kind: KindJSONLines, Dest: filepath.Join(t.TempDir(), "no", "such", "dir.jsonl")},
		{Kind: "statsd", Dest: "127.0.0.1:8125"},
	} {
		if _, err := Open([]Spec{good, bad}, Options{}); err == nil {
			t.Errorf("opened %+v", bad)
		}
	}
}
