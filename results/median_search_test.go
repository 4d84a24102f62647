package results

import "testing"

func TestMedianSearch(t *testing.T) {
	runs := func(caps ...float64) []*PhaseResult {
		var rs []*PhaseResult
		for i, c := range caps {
			rs = append(rs, &PhaseResult{Search: &SearchResult{Capacity: c, LimitedByGenerator: i == 1 && c < 0}})
		}
		return rs
	}
	tests := []struct {
		name string
		runs []*PhaseResult
		want float64
	}{
		{"odd", runs(300, 100, 200), 200},
		{"even takes the lower middle", runs(400, 100, 300, 200), 200},
		{"one", runs(50), 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := medianSearch(tt.runs); got == nil || got.Capacity != tt.want {
				t.Errorf("median search %+v, want capacity %v", got, tt.want)
			}
		})
	}
	limited := runs(100, 200)
	limited[0].Search.LimitedByGenerator = true
	if got := medianSearch(limited); !got.LimitedByGenerator {
		t.Error("a trial limited by the generator must mark the merged search")
	}
	if medianSearch([]*PhaseResult{{}}) != nil {
		t.Error("phases without a search have no median search")
	}
}
