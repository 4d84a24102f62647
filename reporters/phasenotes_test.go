package reporters

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

func TestPhaseNotes(t *testing.T) {
	tests := []struct {
		name  string
		phase results.PhaseResult
		want  []string
	}{
		{"a phase that ran its course says nothing", results.PhaseResult{Name: "m", Ended: results.EndDuration}, nil},
		{"a frozen server", results.PhaseResult{Name: "m", Ended: results.EndDuration,
			Stalls: []results.Stall{{At: time.Second, Duration: 2 * time.Second, Waiting: 4}}},
			[]string{"phase m: the server answered nothing for 2.0 s, from 1.0 s into the phase, 4 requests waiting"}},
		{"data that ran out", results.PhaseResult{Name: "m", Ended: results.EndData, Elapsed: 3 * time.Millisecond,
			EndedDetail: "data source `users` ran out of unique rows (2)"},
			[]string{"phase m ended after 3.00ms: data source `users` ran out of unique rows (2)"}},
		{"an early end without words still says why", results.PhaseResult{Name: "m", Ended: results.EndInterrupted, Elapsed: 1500 * time.Millisecond},
			[]string{"phase m ended after 1.50s: interrupted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := phaseNotes([]*results.PhaseResult{&tt.phase}); !slices.Equal(got, tt.want) {
				t.Errorf("phaseNotes = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDroppedCause(t *testing.T) {
	server := results.Stats{Dropped: 5}
	gen := results.Stats{Dropped: 5, Generator: results.Generator{Saturated: true, Reason: "the scheduler ran 12ms late (p99)"}}
	if got, want := droppedCause(server), "max_in_flight requests were outstanding: the server did not keep up with the requested rate"; got != want {
		t.Errorf("a server that held arrivals back: %q, want %q", got, want)
	}
	if got, want := droppedCause(gen), "the generator could not send them in time (the scheduler ran 12ms late (p99))"; got != want {
		t.Errorf("a saturated generator: %q, want %q", got, want)
	}
}

// TestStallsInEveryReport puts a stall on a phase of the fixture run:
// summary.md and report.html both say it, in the same words.
func TestStallsInEveryReport(t *testing.T) {
	run := fixtureRun()
	c := run.Scenarios[0].Cases[0]
	c.Phases[0].Stalls = []results.Stall{{At: time.Second, Duration: 2 * time.Second, Waiting: 4}}
	want := "the server answered nothing for 2.0 s, from 1.0 s into the phase, 4 requests waiting"
	var md, html bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, run); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"summary.md": md.String(), "report.html": html.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("%s does not say %q", name, want)
		}
	}
}
