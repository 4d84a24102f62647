package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loadgate/loadgate/scenarios"
)

var (
	hostA = Host{Hostname: "a", OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC 7763", Cores: 4, Runner: "RUNNER_OS=Linux"}
	hostB = Host{Hostname: "b", OS: "linux", Arch: "amd64", CPUModel: "Intel Xeon 8370C", Cores: 4, Runner: "RUNNER_OS=Linux"}
)

// t0 is the fixed end of the synthetic runs.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// gateRun is a one-scenario results document whose case "hello" ran
// trials of one second each with the given rps; p50 and p99 are fixed.
func gateRun(end time.Time, host Host, p50 time.Duration, rps ...int64) *Run {
	var total int64
	for _, r := range rps {
		total += r
	}
	p := &PhaseResult{
		Name: "measured", Start: end.Add(-time.Duration(len(rps)) * time.Second), End: end,
		Elapsed: time.Duration(len(rps)) * time.Second, Latency: NewHistogram(), Connect: NewHistogram(),
	}
	p.Requests, p.Succeeded = total, total
	for range total {
		p.Latency.Record(p50)
	}
	for _, r := range rps {
		p.Trials = append(p.Trials, Trial{Requests: r, Elapsed: time.Second, RPS: float64(r), P50: p50, P99: p50})
	}
	res := &ScenarioResult{
		Scenario: &scenarios.Scenario{Name: "gate", File: "gate.yaml"},
		Start:    p.Start, End: end,
		Cases: []*CaseResult{
			{ID: "hello", Target: "hello", Phases: []*PhaseResult{p}},
			{ID: "broken", Target: "broken", Err: "no request completed"},
		},
	}
	return NewRun(Meta{Version: "1.2.3", Host: host, Start: p.Start, End: end}, []ScenarioInput{{Result: res}})
}

func TestBaselineCase(t *testing.T) {
	b := NewBaseline("base.json", []string{"base.json"}, []*Run{gateRun(t0, hostA, time.Millisecond, 1000, 1010, 990)})
	for _, tc := range []struct {
		scenario, id, phase string
		ok                  bool
	}{
		{"gate", "hello", "", true},
		{"gate", "hello", "measured", true},
		{"gate", "hello", "steady", false}, // no such phase
		{"gate", "broken", "", false},      // never ran: no baseline
		{"other", "hello", "", false},
		{"gate", "hello concurrency=1", "", false},
	} {
		c, ok := b.Case(tc.scenario, tc.id, tc.phase)
		if ok != tc.ok {
			t.Errorf("Case(%q, %q, %q): ok = %v, want %v", tc.scenario, tc.id, tc.phase, ok, tc.ok)
		}
		if ok && (len(c.Trials) != 3 || c.Stats.RPS != 1000 || c.Stats.LatencyHist == nil) {
			t.Errorf("Case(%q, %q, %q) = %d trials, rps %v", tc.scenario, tc.id, tc.phase, len(c.Trials), c.Stats.RPS)
		}
	}
	var none *Baseline
	if c, _ := none.find("gate", "hello"); c != nil {
		t.Error("a nil Baseline matched a case")
	}
}

func TestLoadBaselineDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, run *Run) string {
		t.Helper()
		var b bytes.Buffer
		if err := WriteJSON(&b, run); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Newest by Run.End, whatever the file names say.
	older := write("b.json", gateRun(t0, hostA, time.Millisecond, 500))
	newer := write("a.json", gateRun(t0.Add(time.Hour), hostA, time.Millisecond, 2000))
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{newer, older}, b.Files()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if c, ok := b.Case("gate", "hello", ""); !ok || c.Stats.RPS != 2000 {
		t.Errorf("case from the newer run: ok %v, rps %v", ok, c.Stats.RPS)
	}
	if cb := b.CaseFigures("gate", "hello", nil); cb == nil || cb.File != newer || cb.RPS != 2000 {
		t.Errorf("caseBaseline = %+v", cb)
	}

	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"schema": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:                          "c.json: results schema 2 is not supported",
		t.TempDir():                  "no results files",
		filepath.Join(dir, "x.json"): "no such file",
		filepath.Join(dir, "c.json"): "schema 2",
	} {
		if _, err := LoadBaseline(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadBaseline(%s): %v, want an error containing %q", path, err, want)
		}
	}
}

func TestBaselineInfoFor(t *testing.T) {
	same := NewBaseline("base.json", []string{"base.json"}, []*Run{gateRun(t0, hostA, time.Millisecond, 1000)})
	if bi := BaselineInfoFor(same, Host{Hostname: "elsewhere", OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC 7763", Cores: 4, Runner: "RUNNER_OS=Linux"}, "1.2.3", true); !bi.FingerprintMatch || bi.EnvFailed() || bi.Files != nil {
		t.Errorf("same environment, other host name: %+v", bi)
	}
	if bi := BaselineInfoFor(same, hostA, "1.3.0", false); bi.FingerprintMatch ||
		!cmp.Equal(bi.Differences, []string{`loadgate_version: baseline "1.2.3", this run "1.3.0"`}) {
		t.Errorf("other version: %+v", bi)
	}
	two := NewBaseline("dir", []string{"dir/x.json", "dir/y.json"},
		[]*Run{gateRun(t0, hostA, time.Millisecond, 1000), gateRun(t0.Add(time.Minute), hostB, time.Millisecond, 1000)})
	bi := BaselineInfoFor(two, hostA, "1.2.3", true)
	want := []string{`y.json: cpu_model: baseline "Intel Xeon 8370C", this run "AMD EPYC 7763"`}
	if !bi.EnvFailed() || !cmp.Equal(bi.Differences, want) || !cmp.Equal(bi.Files, []string{"dir/y.json", "dir/x.json"}) {
		t.Errorf("two files: %+v", bi)
	}
	if BaselineInfoFor(nil, hostA, "1.2.3", true) != nil {
		t.Error("no baseline gave baseline info")
	}
}
