package reporters

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

// TestTimelineLeavesOutEachTrialsPartialSecond: every trial of a phase
// ends in a partial second of its own, which would plot as an outage
// between trials; only the last one's was left out before.
func TestTimelineLeavesOutEachTrialsPartialSecond(t *testing.T) {
	p := &results.PhaseResult{Name: "measured", Elapsed: 4400 * time.Millisecond}
	for i, n := range []int64{1000, 1000, 5, 1000, 1000, 5} {
		p.Series = append(p.Series, results.Second{At: i, Completed: n})
	}
	for range 2 {
		p.Trials = append(p.Trials, results.Trial{Requests: 2005, Elapsed: 2200 * time.Millisecond})
	}
	segs := caseTimeline(&results.CaseRun{Phases: []*results.PhaseResult{p}})
	if len(segs) != 2 {
		t.Fatalf("%d segments, want one per trial: %+v", len(segs), segs)
	}
	for i, seg := range segs {
		if len(seg) != 2 {
			t.Errorf("trial %d: %d points, want its 2 whole seconds: %+v", i+1, len(seg), seg)
		}
		for _, pt := range seg {
			if pt.succeeded != 1000 {
				t.Errorf("trial %d: a point of %d requests, a partial second plotted", i+1, pt.succeeded)
			}
		}
	}
}
