package history

import (
	"encoding/json"
	"testing"

	"github.com/loadgate/loadgate/history/changepoint"
)

// FuzzEntries: whatever a store file holds, reading it, building its
// series, cutting them and judging against them never panics, and the
// segments cover every point exactly once.
func FuzzEntries(f *testing.F) {
	f.Add([]byte(`{"schema":1,"scenario":"s","time":"2026-01-01T00:00:00Z","commit":"abc","environment":{"os":"linux","cores":2},"cases":[{"id":"c","metrics":[{"name":"rps","median":100,"trials":[99,101]},{"name":"error_rate","median":0}]}]}`))
	f.Add([]byte(`{"schema":1,"cases":[{"id":"","metrics":[{"name":"rps","median":-1e308,"trials":[]},{"name":"capacity","median":0,"trials":[1,2,3,4]}]},{"id":"","metrics":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e Entry
		if json.Unmarshal(data, &e) != nil {
			return
		}
		entries := []*Entry{&e, &e, &e, &e}
		for _, s := range BuildSeries(entries, Filter{}) {
			a := Analyze(s, changepoint.Options{Window: 6})
			covered := 0
			for i, seg := range a.Segments {
				if seg.Start != covered || seg.End <= seg.Start {
					t.Fatalf("segment %d is [%d, %d) after %d points", i, seg.Start, seg.End, covered)
				}
				covered = seg.End
			}
			if covered != len(s.Points) {
				t.Fatalf("segments cover %d of %d points", covered, len(s.Points))
			}
		}
		b := NewBaseline("store", entries, e.Environment, changepoint.Options{}, nil)
		for _, c := range e.Cases {
			b.Case(e.Scenario, c.ID, "")
			b.CaseFigures(e.Scenario, c.ID, nil)
		}
		Check([]*Analysis{}, 0.05)
	})
}
