package runner

import (
	"testing"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func TestRedactSamples(t *testing.T) {
	sc := &scenarios.Scenario{Secrets: scenarios.NewRedactor(`pa"ss-word`, "tok-123456")}
	cr := &results.CaseResult{Phases: []*results.PhaseResult{{ErrorSamples: map[string]string{
		"connect": "dial tok-123456.example: no such host",
		// The reply a step got is quoted: the secret is escaped there.
		"check": `step 2 (expect): reply does not contain "+OK": got "-ERR bad password pa\"ss-word"`,
	}}}}
	redactSamples(sc, cr)
	want := map[string]string{
		"connect": "dial REDACTED.example: no such host",
		"check":   `step 2 (expect): reply does not contain "+OK": got "-ERR bad password REDACTED"`,
	}
	for k, w := range want {
		if got := cr.Phases[0].ErrorSamples[k]; got != w {
			t.Errorf("%s sample %q, want %q", k, got, w)
		}
	}
	redactSamples(nil, cr) // a scenario-less run redacts nothing, and does not fail
}
