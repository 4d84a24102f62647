package results

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loadgate/loadgate/scenarios"
)

func TestNewRunPassed(t *testing.T) {
	mk := func(vs ...Verdict) []ScenarioInput {
		res := &ScenarioResult{Cases: []*CaseResult{{ID: "a", Target: "a"}}}
		return []ScenarioInput{{Result: res, Verdicts: vs}}
	}
	v := func(s Status, sev scenarios.Severity) Verdict {
		return Verdict{Case: "a", Status: s, Severity: sev}
	}
	tests := []struct {
		name   string
		inputs []ScenarioInput
		want   bool
	}{
		{"no scenarios", nil, true},
		{"all pass", mk(v(StatusPass, scenarios.SeverityFail)), true},
		{"warn failure does not fail the run", mk(v(StatusFail, scenarios.SeverityWarn)), true},
		{"warn error does not fail the run", mk(v(StatusError, scenarios.SeverityWarn)), true},
		{"skip does not fail the run", mk(v(StatusSkip, scenarios.SeverityFail)), true},
		{"fail", mk(v(StatusFail, scenarios.SeverityFail)), false},
		{"rule error", mk(v(StatusError, scenarios.SeverityFail)), false},
		{"scenario error", []ScenarioInput{{Err: errors.New("boom")}}, false},
		{"case error", []ScenarioInput{{Result: &ScenarioResult{
			Cases: []*CaseResult{{ID: "a", Err: "no request completed"}},
		}}}, false},
		// A verdict naming no known case is kept and still counts.
		{"orphan failure", []ScenarioInput{{Verdicts: []Verdict{
			{Case: "gone", Status: StatusFail, Severity: scenarios.SeverityFail},
		}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewRun(Meta{}, tt.inputs).Passed; got != tt.want {
				t.Errorf("Passed = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewRunKeepsOrphanVerdicts(t *testing.T) {
	orphan := Verdict{Case: "gone", Name: "x", Status: StatusPass}
	run := NewRun(Meta{}, []ScenarioInput{{Verdicts: []Verdict{orphan}}})
	if got := run.Scenarios[0].Verdicts; !cmp.Equal(got, []Verdict{orphan}) {
		t.Errorf("Verdicts = %+v", got)
	}
	if got := run.Scenarios[0].Name; got != "scenario-1" {
		t.Errorf("Name = %q, want a placeholder", got)
	}
}

func TestReadRunRejects(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"newer schema", `{"schema": 2, "scenarios": []}`, "schema 2 is not supported"},
		{"no schema", `{"scenarios": []}`, "no \"schema\" field"},
		{"not JSON", `schema: 1`, "not valid JSON"},
		{"wrong type", `{"schema": 1, "passed": "yes"}`, "decode results"},
		{"null case", `{"schema": 1, "scenarios": [{"name": "s", "cases": [null]}]}`, "null case"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadRun(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestReadRunFillsMissingHistograms(t *testing.T) {
	doc := `{"schema": 1, "scenarios": [{"name": "s", "cases": [{"id": "a", "phases": [{"name": "m", "requests": 3, "succeeded": 3}]}]}]}`
	run, err := ReadRun(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	p := run.Scenarios[0].Cases[0].Phases[0]
	if p.Latency == nil || p.Connect == nil || p.Latency.Count() != 0 {
		t.Errorf("histograms not filled: %+v", p)
	}
}

func TestMatrixEntryTypes(t *testing.T) {
	in := []MatrixEntry{
		{"concurrency", int64(100)},
		{"ratio", 0.5},
		{"big", int64(1) << 60},
		{"keepalive", true},
		{"server", "nginx"},
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []MatrixEntry
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("matrix values changed type (-in +out):\n%s", diff)
	}
}

func TestCPUModel(t *testing.T) {
	tests := []struct {
		name, cpuinfo, want string
	}{
		{"x86", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\nprocessor\t: 1\nmodel name\t: AMD EPYC 7763 64-Core Processor\n", "AMD EPYC 7763 64-Core Processor"},
		{"arm board", "processor\t: 0\nBogoMIPS\t: 108.00\nHardware\t: BCM2835\n", "BCM2835"},
		{"nothing known", "processor\t: 0\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cpuModel(strings.NewReader(tt.cpuinfo)); got != tt.want {
				t.Errorf("cpuModel = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRunnerFingerprint(t *testing.T) {
	env := map[string]string{
		"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
		// Names a single machine and would make equal runners differ.
		"RUNNER_NAME": "GitHub Actions 12",
	}
	got := runnerFingerprint(func(k string) string { return env[k] })
	if want := "RUNNER_ARCH=X64 RUNNER_OS=Linux"; got != want {
		t.Errorf("runnerFingerprint = %q, want %q", got, want)
	}
	if got := runnerFingerprint(func(string) string { return "" }); got != "" {
		t.Errorf("outside CI: %q, want empty", got)
	}
}

func TestHostInfo(t *testing.T) {
	h := HostInfo()
	if h.Hostname == "" || h.OS == "" || h.Arch == "" || h.Cores < 1 {
		t.Errorf("HostInfo() = %+v: every field but CPUModel and Runner must be set", h)
	}
}
