package results

import (
	"fmt"

	"github.com/loadgate/loadgate/units"
)

// MergeSearch combines the capacity searches of the segments of one phase
// (`loadgate merge` of a sharded run): N generators each found the
// capacity of their share of the load, so the whole's is their sum — but
// only if every segment found its own. A segment without a search, or
// whose search the generator limited, leaves the sum a lower bound of
// unknown quality, so the merged capacity is not a number: ok is false,
// and the result (never nil) says which segment in Reason, with Capacity
// 0. Rules must then skip capacity rather than judge the 0.
//
// With ok, Capacity, Pass and Fail are the segments' sums (Fail only when
// every segment has one) and Probes are every segment's, in segment order.
func MergeSearch(parts []*SearchResult) (*SearchResult, bool) {
	if len(parts) == 0 {
		return &SearchResult{Reason: "no segment ran a search"}, false
	}
	m := &SearchResult{}
	fails := true
	for i, p := range parts {
		switch {
		case p == nil:
			return &SearchResult{Reason: fmt.Sprintf("segment %d of %d ran no search: the capacity of the whole is unknown", i+1, len(parts))}, false
		case p.LimitedByGenerator:
			return &SearchResult{LimitedByGenerator: true, Reason: fmt.Sprintf(
				"segment %d of %d was limited by its generator (capacity ≥ %s): the capacity of the whole is unknown",
				i+1, len(parts), units.FormatRate(p.Capacity))}, false
		}
		m.Probes = append(m.Probes, p.Probes...)
		m.Capacity += p.Capacity
		m.Pass += p.Pass
		m.Fail += p.Fail
		fails = fails && p.Fail > 0
	}
	if !fails {
		m.Fail = 0
	}
	m.Reason = fmt.Sprintf("the sum of the capacities %d segments found", len(parts))
	if len(parts) == 1 {
		m.Reason = "the capacity its one segment found"
	}
	return m, true
}
