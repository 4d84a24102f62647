package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

var hostA = results.Host{Hostname: "a", OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC 7763", Cores: 4}

// runOf is a results document of one scenario and one case whose trials
// measured rps (with p99 = 1s/rps, so lower latency goes with more rps).
func runOf(end time.Time, commit string, rps ...float64) *results.Run {
	var trials []results.Trial
	for _, r := range rps {
		trials = append(trials, results.Trial{RPS: r, Requests: int64(r), Failed: 0, Elapsed: time.Second,
			P50: time.Duration(float64(time.Second) / r / 2), P99: time.Duration(float64(time.Second) / r)})
	}
	phase := &results.PhaseResult{Name: "measured", Trials: trials}
	c := &results.CaseRun{ID: "hello", Target: "hello", Phases: []*results.PhaseResult{phase}}
	c.Stats = results.Summarize(c.Phases)
	return &results.Run{
		Schema: results.Schema, LoadgateVersion: "1.0.0", Start: end.Add(-time.Minute), End: end,
		Commit: commit, Host: hostA, Passed: true,
		Scenarios: []*results.ScenarioRun{{Name: "gate", Cases: []*results.CaseRun{c}}},
	}
}

func TestEntriesOfRefuses(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(*results.Run)
		want  string
	}{
		{"interrupted", func(r *results.Run) { r.Interrupted = true }, "interrupted"},
		{"aborted", func(r *results.Run) { r.Scenarios[0].Aborted = &results.Aborted{Rule: "p99 < 1s"} }, `aborted by its rule "p99 < 1s"`},
		{"scenario error", func(r *results.Run) { r.Scenarios[0].Error = "server did not start" }, "could not be carried out (server did not start)"},
		{"case error", func(r *results.Run) { r.Scenarios[0].Cases[0].Error = "no request succeeded" }, `case "hello"`},
		{"segment", func(r *results.Run) { r.Segment = &results.SegmentInfo{Index: 2, Count: 3} }, "segment 2/3"},
		{"empty", func(r *results.Run) { r.Scenarios = nil }, "no scenario"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runOf(t0, "abc", 100, 101, 99)
			tt.spoil(run)
			_, err := EntriesOf(run, Origin{})
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrRefused naming %q", err, tt.want)
			}
		})
	}
}

func TestEntriesOfKeepsTrialsAndMedians(t *testing.T) {
	es, err := EntriesOf(runOf(t0, "abc1234", 90, 110, 100), Origin{Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	e := es[0]
	if e.Commit != "abc1234" || e.Branch != "main" || e.Environment.Cores != 4 || e.Version != "1.0.0" {
		t.Fatalf("entry = %+v", e)
	}
	rps, ok := e.Cases[0].Metric("rps")
	if !ok || rps.Median != 100 || len(rps.Trials) != 3 || rps.Trials[0] != 90 {
		t.Fatalf("rps = %+v", rps)
	}
	if e.Cases[0].Phases[0] != "measured" {
		t.Fatalf("phases = %v", e.Cases[0].Phases)
	}
	var names []string
	for _, m := range e.Cases[0].Metrics {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, " "); got != "rps p50 p99 error_rate requests" {
		t.Fatalf("metrics = %s", got)
	}
}

func TestAddNeverRewrites(t *testing.T) {
	dir := t.TempDir()
	es, _ := EntriesOf(runOf(t0, "abcdef0123", 100), Origin{})
	path, err := Add(dir, es[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "gate", "20261201T100000.000Z-abcdef0.json"); path != want {
		t.Fatalf("path = %s, want %s", path, want)
	}
	before, _ := os.ReadFile(path)
	es[0].Branch = "changed"
	if _, err := Add(dir, es[0]); err == nil || !strings.Contains(err.Error(), "already in the store") {
		t.Fatalf("second add: err = %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("the second add rewrote the file")
	}
	left, _ := filepath.Glob(filepath.Join(dir, "gate", ".add-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestLoadOrdersByTimeAndRefusesStrays(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []string{"c3", "c1", "c2"} {
		end := t0.Add(time.Duration([]int{3, 1, 2}[i]) * time.Hour)
		es, _ := EntriesOf(runOf(end, c, 100), Origin{})
		if _, err := Add(dir, es[0]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Commit != "c1" || got[2].Commit != "c3" {
		t.Fatalf("order: %v %v %v", got[0].Commit, got[1].Commit, got[2].Commit)
	}
	if got, _ := Load(dir, "other"); len(got) != 0 {
		t.Fatalf("another scenario's entries: %d", len(got))
	}
	if err := os.WriteFile(filepath.Join(dir, "gate", "stray.json"), []byte(`{"schema": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, ""); err == nil || !strings.Contains(err.Error(), "stray.json") {
		t.Fatalf("stray file: err = %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing"), ""); err == nil {
		t.Fatal("a missing store loaded")
	}
}

func TestBuildSeriesSplitsEnvironmentsAndLoads(t *testing.T) {
	var entries []*Entry
	add := func(run *results.Run, load string) {
		es, _ := EntriesOf(run, Origin{})
		es[0].Cases[0].Load = load
		entries = append(entries, es[0])
	}
	add(runOf(t0, "a", 100), "L1")
	add(runOf(t0.Add(time.Hour), "b", 100), "L1")
	other := runOf(t0.Add(2*time.Hour), "c", 100)
	other.Host.Cores = 8
	add(other, "L1")
	add(runOf(t0.Add(3*time.Hour), "d", 100), "L2")
	series := BuildSeries(entries, Filter{Metric: "rps"})
	if len(series) != 3 {
		t.Fatalf("%d series, want 3 (two environments, two loads)", len(series))
	}
	if n := len(series[0].Points); n != 2 || series[0].Key.Load != "L1" || series[0].Environment.Cores != 4 {
		t.Fatalf("first series: %d points, %+v", n, series[0].Key)
	}
	if all := BuildSeries(entries, Filter{}); len(all) != 3*5 {
		t.Fatalf("%d series over every metric, want 15", len(all))
	}
}
