package reporters

import (
	"bytes"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
)

func TestSaturatedGeneratorMarksEveryReport(t *testing.T) {
	run := &results.Run{Schema: results.Schema, Passed: true, Scenarios: []*results.ScenarioRun{{Name: "flood", Cases: []*results.CaseRun{
		{ID: "web", Target: "web", Stats: runner.Stats{Generator: runner.Generator{CPU: 0.97, Saturated: true,
			Reason: "the scheduler ran 40ms late (p99)"}}},
		{ID: "calm", Target: "calm"},
	}}}}
	if !run.Invalid() {
		t.Fatal("Invalid() = false")
	}
	var md, junit bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&junit, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"invalid: generator saturated", "Invalid run", "flood / web: the scheduler ran 40ms late"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "flood / calm") {
		t.Error("markdown blames a healthy case")
	}
	if !strings.Contains(junit.String(), `name="web.invalid" value="generator saturated: the scheduler ran 40ms late (p99)"`) {
		t.Errorf("junit lacks the invalid property:\n%s", junit.String())
	}
	healthy := &results.Run{Scenarios: []*results.ScenarioRun{{Name: "ok", Cases: []*results.CaseRun{{ID: "calm"}}}}}
	if healthy.Invalid() {
		t.Error("a healthy run is invalid")
	}
}
