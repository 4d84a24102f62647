package regression

import (
	"fmt"
	"math"
	"slices"
)

// Status is the outcome of a regression judgement.
type Status string

// The three outcomes (SPEC §6).
const (
	Pass         Status = "pass"
	Regressed    Status = "regressed"
	Inconclusive Status = "inconclusive"
)

// Alpha is the significance level of the rank test.
const Alpha = 0.05

// Direction says which way a metric improves.
type Direction int

// Directions: rps improves upwards; latency and error rate downwards.
const (
	HigherIsBetter Direction = iota
	LowerIsBetter
)

// Judgement is the verdict on one metric of one case.
type Judgement struct {
	Status     Status
	Reason     string  // one sentence a report can show as is
	Base, Cand float64 // medians
	Change     float64 // (Cand − Base) / Base: +0.1 is 10 % higher
	P          float64 // p-value of the rank test; 1 when it could not run
}

// Judge compares candidate trials with baseline trials. The candidate has
// regressed only when its median is worse than the baseline's by more than
// tolerance (a fraction: 0.05 = 5 %) and the rank test finds the samples
// differ at Alpha. A change beyond the tolerance that the trials cannot
// confirm is inconclusive: too few trials, or too much spread to tell.
func Judge(base, cand []float64, dir Direction, tolerance float64) Judgement {
	j := Judgement{P: 1}
	if len(base) == 0 || len(cand) == 0 {
		j.Status, j.Reason = Inconclusive, "no trials to compare"
		return j
	}
	j.Base, j.Cand = Median(base), Median(cand)
	switch {
	case j.Base != 0:
		j.Change = (j.Cand - j.Base) / math.Abs(j.Base)
	case j.Cand != 0:
		j.Change = math.Copysign(math.Inf(1), j.Cand)
	}
	// worse is the change in the bad direction: positive means worse.
	worse := -j.Change
	if dir == LowerIsBetter {
		worse = j.Change
	}
	if worse <= tolerance {
		j.Status = Pass
		j.Reason = fmt.Sprintf("%s, within the %s tolerance", describe(j.Change), pct(tolerance))
		return j
	}
	if least := SmallestP(len(base), len(cand)); least >= Alpha {
		j.Status = Inconclusive
		j.Reason = fmt.Sprintf("%s, beyond the %s tolerance, but %d vs %d trials cannot show significance: the smallest p they can give is %.3f (%s)",
			describe(j.Change), pct(tolerance), len(base), len(cand), least, moreTrials(len(base)))
		return j
	}
	mw := MannWhitneyU(base, cand)
	j.P = mw.P
	if mw.P < Alpha {
		j.Status = Regressed
		j.Reason = fmt.Sprintf("%s, beyond the %s tolerance and significant (p = %.3f, %d vs %d trials)",
			describe(j.Change), pct(tolerance), mw.P, len(base), len(cand))
		return j
	}
	j.Status = Inconclusive
	j.Reason = fmt.Sprintf("%s, beyond the %s tolerance but not significant (p = %.3f ≥ %.2f, %d vs %d trials)",
		describe(j.Change), pct(tolerance), mw.P, Alpha, len(base), len(cand))
	return j
}

// SmallestP is the smallest two-sided p-value the rank test can give n
// trials against m: every one of one side beyond every one of the other,
// 2 / C(n+m, n). When it is not below Alpha, no result of those trials can
// be significant, however far apart.
func SmallestP(n, m int) float64 {
	if n == 0 || m == 0 {
		return 1
	}
	// C(n+m, n) as a float: exact for the trial counts a run has.
	c := 1.0
	for i := 1; i <= n; i++ {
		c = c * float64(m+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// moreTrials says what trial counts would make significance reachable
// against a baseline of base trials: the candidate's alone when a few more
// suffice, else both sides'.
func moreTrials(base int) string {
	for k := 3; k <= 10; k++ {
		if SmallestP(base, k) < Alpha {
			return fmt.Sprintf("use trials: %d or more", k)
		}
	}
	return fmt.Sprintf("the baseline has %d; give both runs trials: 5 or more", base)
}

// Median is the median of xs, the mean of the middle two for an even
// count; the figure a judgement compares.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}

func describe(change float64) string {
	switch {
	case math.IsInf(change, 0):
		return "changed from zero"
	case change == 0:
		return "unchanged"
	case change > 0:
		return fmt.Sprintf("%s higher", pct(change))
	default:
		return fmt.Sprintf("%s lower", pct(-change))
	}
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
