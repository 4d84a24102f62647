package regression

import (
	"fmt"
	"math"
)

// MinRuns is the fewest runs of a baseline whose spread a judgement can
// weigh: with fewer, their standard deviation means nothing.
const MinRuns = 3

// AgainstRuns weighs a judgement of pooled trials against the spread of
// the runs they came from. Trials of one run share that run's luck (the
// machine, its neighbours), so a rank test of one candidate run against
// the pooled trials of many runs finds a difference that is only the
// candidate run's luck; what can tell a slower candidate from an unlucky
// one is main's own run-to-run spread. runs holds one value per run of
// the baseline, cand the candidate's trials.
//
// A regression stands when the candidate's median also lies outside the
// runs' 95 % prediction interval (Student's t with len(runs)-1 degrees of
// freedom); otherwise it becomes inconclusive, saying so. Other verdicts,
// and judgements with fewer than MinRuns runs, are returned as they are.
func (j Judgement) AgainstRuns(runs []float64, cand []float64) Judgement {
	if j.Status != Regressed || len(runs) < MinRuns || len(cand) == 0 {
		return j
	}
	mean, variance := MeanVar(runs)
	sd := math.Sqrt(variance)
	x := Median(cand)
	if sd == 0 || x == mean {
		return j
	}
	n := float64(len(runs))
	p := StudentTwoSided((x-mean)/(sd*math.Sqrt(1+1/n)), n-1)
	if p < Alpha {
		j.Reason += fmt.Sprintf(", and beyond main's run-to-run spread (p = %.3f over %d runs)", p, len(runs))
		return j
	}
	j.Status = Inconclusive
	cov := 0.0
	if mean != 0 {
		cov = sd / math.Abs(mean)
	}
	j.Reason += fmt.Sprintf(", but within main's run-to-run spread (%s between its %d runs; p = %.3f ≥ %.2f): one run's luck could do as much", pct(cov), len(runs), p, Alpha)
	return j
}

// MeanVar is the mean and the unbiased sample variance of xs (0 with one
// value), in two passes so that large, nearly equal values (latency in
// nanoseconds) keep their precision.
func MeanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		variance /= float64(len(xs) - 1)
	}
	return mean, variance
}
