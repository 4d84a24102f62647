package regression

import (
	"math"
	"testing"
)

// The critical values of Student's t from the printed tables: the
// two-sided p-value at each is the table's column.
func TestStudentTwoSidedMatchesTheTables(t *testing.T) {
	for _, tt := range []struct {
		t, df, p, tol float64
	}{
		{1, 1, 0.5, 1e-12}, // Cauchy: P(|T| > 1) = 1/2
		{12.706, 1, 0.05, 1e-4},
		{2.228, 10, 0.05, 1e-4},
		{3.169, 10, 0.01, 1e-4},
		{4.587, 10, 0.001, 1e-5},
		{2.0, 10, 0.07339, 1e-4},
		{1.96, 1e7, 0.05, 1e-4},
		{0, 7, 1, 1e-12},
		{-2.228, 10, 0.05, 1e-4},
		{math.Inf(1), 3, 0, 0},
	} {
		if got := StudentTwoSided(tt.t, tt.df); math.Abs(got-tt.p) > tt.tol {
			t.Errorf("StudentTwoSided(%g, %g) = %.6f, want %.6f", tt.t, tt.df, got, tt.p)
		}
	}
}
