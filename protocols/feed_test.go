package protocols

import (
	"testing"

	"github.com/loadgate/loadgate/scenarios"
)

func TestRowIndex(t *testing.T) {
	const (
		seq, rnd, uniq = scenarios.DataSequential, scenarios.DataRandom, scenarios.DataUnique
		stop, recycle  = scenarios.ExhaustedStop, scenarios.ExhaustedRecycle
	)
	for _, tc := range []struct {
		mode      scenarios.DataMode
		exhausted scenarios.DataExhausted
		n, draw   int64
		want      int
		ok        bool
	}{
		{seq, recycle, 3, 0, 0, true},
		{seq, recycle, 3, 2, 2, true},
		{seq, recycle, 3, 3, 0, true},
		{seq, recycle, 3, 7, 1, true},
		{seq, stop, 3, 3, 0, false},
		{uniq, stop, 3, 2, 2, true},
		{uniq, stop, 3, 3, 0, false},
		{uniq, recycle, 3, 4, 1, true},
		{rnd, stop, 3, 1000, 1, true},
		{rnd, recycle, 0, 5, 0, false},
		{seq, recycle, 0, 0, 0, false},
	} {
		got, ok := rowIndex(tc.mode, tc.exhausted, tc.n, tc.draw)
		if got != tc.want || ok != tc.ok {
			t.Errorf("rowIndex(%d, %d, n=%d, draw=%d) = %d, %v; want %d, %v", tc.mode, tc.exhausted, tc.n, tc.draw, got, ok, tc.want, tc.ok)
		}
	}
}
