package results

import (
	"testing"
	"time"
)

// TestSegmentsKeepStallsAndWhyTheyEnded merges two segments of a phase:
// both segments' stalls are the whole's, and the one that ended early
// says why the whole did.
func TestSegmentsKeepStallsAndWhyTheyEnded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	part := func(st []Stall, ended, detail string) *PhaseResult {
		return &PhaseResult{Name: "m", Start: t0, End: t0.Add(3 * time.Second), Elapsed: 3 * time.Second,
			Latency: NewHistogram(), FailedLatency: NewHistogram(), Connect: NewHistogram(),
			Stalls: st, Ended: ended, EndedDetail: detail, GracefulStop: time.Second}
	}
	m := mergePhase([]*PhaseResult{
		part(nil, EndDuration, ""),
		part([]Stall{{At: time.Second, Duration: 2 * time.Second, Waiting: 3}}, EndAborted, "abort rule `p99 < 1s` failed"),
	}, nil)
	if len(m.Stalls) != 1 || m.Stalls[0].Waiting != 3 {
		t.Errorf("stalls %+v, want the second segment's", m.Stalls)
	}
	if m.Ended != EndAborted || m.EndedDetail == "" || m.GracefulStop != time.Second {
		t.Errorf("ended %q (%q), graceful stop %v; want the aborted segment's end and 1s", m.Ended, m.EndedDetail, m.GracefulStop)
	}
}
