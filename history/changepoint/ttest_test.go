package changepoint

import (
	"testing"
)

func TestTTestPValue(t *testing.T) {
	for _, tt := range []struct {
		name   string
		a, b   []float64
		lo, hi float64
	}{
		{"one value a side has no spread to judge by", []float64{1}, []float64{5}, 1, 1},
		{"one value beside a spread: pooled with it", []float64{1}, []float64{5, 6, 5.5}, 0, 0.05},
		{"two values that agree do not make certainty", []float64{10, 10.001}, []float64{9, 11, 10.5, 9.5, 10.2}, 0.5, 1},
		{"two flat levels that differ are certain", []float64{3, 3, 3}, []float64{4, 4}, 0, 0},
		{"two flat equal levels", []float64{3, 3}, []float64{3, 3, 3}, 1, 1},
		{"the same values", []float64{1, 2, 3, 4}, []float64{1, 2, 3, 4}, 1, 1},
		{"overlapping samples", []float64{10, 11, 9, 10.5, 9.5}, []float64{10.2, 10.8, 9.1, 10.1, 9.9}, 0.5, 1},
		{"well apart", []float64{10, 11, 9, 10.5, 9.5}, []float64{20, 21, 19, 20.5, 19.5}, 0, 1e-6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if p := tTestPValue(tt.a, tt.b); p < tt.lo || p > tt.hi {
				t.Errorf("p = %g, want in [%g, %g]", p, tt.lo, tt.hi)
			}
		})
	}
}
