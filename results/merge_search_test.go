package results

import (
	"strings"
	"testing"
)

func TestMergeSearch(t *testing.T) {
	found := func(c, fail float64) *SearchResult {
		return &SearchResult{Capacity: c, Pass: c, Fail: fail, Probes: []Probe{{Rate: c, Passed: true}}}
	}
	limited := &SearchResult{Capacity: 800, Pass: 800, LimitedByGenerator: true}
	tests := []struct {
		name     string
		parts    []*SearchResult
		ok       bool
		capacity float64
		fail     float64
		limited  bool
		reason   string
		probes   int
	}{
		{"sum of each segment's own", []*SearchResult{found(1000, 1050), found(1200, 1250)}, true, 2200, 2300, false, "2 segments", 2},
		{"one segment", []*SearchResult{found(500, 520)}, true, 500, 520, false, "one segment", 1},
		{"a bracket without top has no summed fail", []*SearchResult{found(1000, 1050), found(3000, 0)}, true, 4000, 0, false, "", 2},
		{"a segment limited by its generator", []*SearchResult{found(1000, 1050), limited}, false, 0, 0, true, "segment 2 of 2 was limited by its generator (capacity ≥ 800/s)", 0},
		{"a segment without a search", []*SearchResult{nil, found(1000, 1050)}, false, 0, 0, false, "segment 1 of 2 ran no search", 0},
		{"no segment", nil, false, 0, 0, false, "no segment", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MergeSearch(tt.parts)
			if got == nil {
				t.Fatal("MergeSearch returned nil")
			}
			if ok != tt.ok || got.Capacity != tt.capacity || got.Fail != tt.fail || got.LimitedByGenerator != tt.limited ||
				!strings.Contains(got.Reason, tt.reason) || len(got.Probes) != tt.probes {
				t.Errorf("MergeSearch = %+v, %v; want capacity %v fail %v limited %v ok %v reason ~%q, %d probes",
					*got, ok, tt.capacity, tt.fail, tt.limited, tt.ok, tt.reason, tt.probes)
			}
		})
	}
}
