package scenarios

import (
	"fmt"
)

// Segment names one share of a distributed run: Index of Count, 1-based as
// users write it (`--segment 2/4`).
type Segment struct {
	Index, Count int
}

// Whole is the undivided run.
var Whole = Segment{Index: 1, Count: 1}

// ParseSegment reads "I/N".
func ParseSegment(s string) (Segment, error) {
	var seg Segment
	var rest string
	if n, _ := fmt.Sscanf(s, "%d/%d%s", &seg.Index, &seg.Count, &rest); n != 2 {
		return Segment{}, fmt.Errorf("segment %q: want I/N, e.g. 2/4", s)
	}
	if seg.Count < 1 || seg.Index < 1 || seg.Index > seg.Count {
		return Segment{}, fmt.Errorf("segment %q: want 1 ≤ I ≤ N", s)
	}
	return seg, nil
}

func (s Segment) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// share is segment s's part of total when total is split as evenly as
// possible, remainders going to the first segments: 10 over 4 is 3, 3, 2, 2.
func (s Segment) share(total int64) int64 {
	base, rem := total/int64(s.Count), total%int64(s.Count)
	if int64(s.Index) <= rem {
		return base + 1
	}
	return base
}

// SplitPhase returns segment s's part of ph: concurrency (both ends of a
// ramp), request count, arrival rate and max_in_flight are divided; the
// duration, the matrix and the targets stay the same in every segment. ok
// is false when the segment's share of this phase is zero (more segments
// than workers or requests), so it has nothing to send.
func SplitPhase(ph Phase, s Segment) (part Phase, ok bool) {
	if s.Count <= 1 {
		return ph, true
	}
	part = ph
	ok = true
	if ph.Search != nil {
		// Each segment searches for its share of the capacity; merge adds
		// the parts up only when every one found its own.
		sr := *ph.Search
		sr.From, sr.Max = sr.From/float64(s.Count), sr.Max/float64(s.Count)
		sr.MaxInFlight = int(max(1, s.share(int64(sr.MaxInFlight))))
		part.Search = &sr
		return part, true
	}
	if ph.Requests > 0 {
		reqSeg := s
		if !ph.Rate.Open() && ph.Concurrency < s.Count {
			// Only the segments that get a worker can send: the request
			// count is split among them, so none is stranded without one.
			reqSeg.Count = ph.Concurrency
		}
		if reqSeg.Index <= reqSeg.Count {
			part.Requests = reqSeg.share(ph.Requests)
		} else {
			part.Requests = 0
		}
		ok = ok && part.Requests > 0
	}
	if ph.Rate.Open() {
		// Rates are real numbers: every segment gets an equal share.
		part.Rate = Rate{From: ph.Rate.From / float64(s.Count), To: ph.Rate.To / float64(s.Count)}
		part.MaxInFlight = int(max(1, s.share(int64(ph.MaxInFlight))))
	} else {
		part.Concurrency = int(s.share(int64(ph.Concurrency)))
		if ph.ConcurrencyFrom > 0 {
			part.ConcurrencyFrom = int(s.share(int64(ph.ConcurrencyFrom)))
			if part.ConcurrencyFrom == 0 && part.Concurrency > 0 {
				// This segment's workers all join during the ramp.
				part.ConcurrencyFrom = 1
			}
			if part.ConcurrencyFrom >= part.Concurrency {
				part.ConcurrencyFrom = 0 // nothing left to ramp in this share
			}
		}
		ok = ok && part.Concurrency > 0
	}
	return part, ok
}

// SplitScenario returns a copy of sc whose every phase is segment s's part.
// Phases with a zero share are dropped; empty reports whether nothing at
// all is left for this segment to send.
func SplitScenario(sc *Scenario, s Segment) (part *Scenario, empty bool) {
	if s.Count <= 1 {
		return sc, false
	}
	cp := *sc
	cp.Cases = make([]Case, len(sc.Cases))
	empty = true
	for i, c := range sc.Cases {
		c.Phases = nil
		for _, ph := range sc.Cases[i].Phases {
			if p, ok := SplitPhase(ph, s); ok {
				c.Phases = append(c.Phases, p)
				empty = empty && p.Warmup
			}
		}
		cp.Cases[i] = c
	}
	return &cp, empty
}
