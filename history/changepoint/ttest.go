package changepoint

import (
	"math"

	"github.com/loadgate/loadgate/assertions/regression"
)

// tTestPValue is the two-sided p-value of Student's t-test that a and b
// have the same mean, their variances pooled. Pooled rather than Welch's:
// a segment of two or three runs that happen to agree has a variance near
// zero, and Welch's test would take that as certainty; pooling weighs it
// by its few degrees of freedom. It is 1 when the sides hold fewer than
// three values between them beyond one each (no spread to judge by) and,
// when neither side varies, 0 or 1 as the means differ or not: a step in
// a series without noise is certain.
func tTestPValue(a, b []float64) float64 {
	na, nb := float64(len(a)), float64(len(b))
	if len(a) < 1 || len(b) < 1 || len(a)+len(b) < 3 {
		return 1
	}
	ma, va := regression.MeanVar(a)
	mb, vb := regression.MeanVar(b)
	df := na + nb - 2
	pooled := ((na-1)*va + (nb-1)*vb) / df
	if pooled == 0 {
		if ma == mb {
			return 1
		}
		return 0
	}
	t := (ma - mb) / math.Sqrt(pooled*(1/na+1/nb))
	return regression.StudentTwoSided(t, df)
}
