package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/history"
	"github.com/loadgate/loadgate/history/changepoint"
)

// mainRuns is how long main's simulated history is when a pull request
// is judged: long enough for the stable level to hold its 30 runs.
const mainRuns = 40

// gates judges simulated pull requests of throughput two ways: against
// the one latest run of main (--baseline), and against the pooled trials
// of main's latest stable level (--baseline-history), with and without a
// real slowdown of 5 %.
func gates(m model, o changepoint.Options, prs int, tolerance float64) {
	type tally struct{ regressed, inconclusive int }
	var single, pooled [2]tally // [0] no change, [1] a 5 % slowdown
	for pr := range prs {
		r := rand.New(rand.NewPCG(uint64(pr), 2))
		var trials [][]float64
		var medians []float64
		for range mainRuns {
			t := m.run(r, 1000)
			trials = append(trials, t)
			medians = append(medians, median(t))
		}
		level := stableLevel(trials, medians, o)
		for i, slowdown := range []float64{0, 0.05} {
			cand := m.run(r, 1000*(1-slowdown))
			count := func(t *tally, j regression.Judgement) {
				switch j.Status {
				case regression.Regressed:
					t.regressed++
				case regression.Inconclusive:
					t.inconclusive++
				}
			}
			count(&single[i], regression.Judge(trials[len(trials)-1], cand, regression.HigherIsBetter, tolerance))
			count(&pooled[i], regression.Judge(level, cand, regression.HigherIsBetter, tolerance))
		}
	}
	per100 := func(n int) string { return fmt.Sprintf("%.1f", 100*float64(n)/float64(prs)) }
	fmt.Printf("gates: %d pull requests of %d trials each, rps, tolerance %.0f %%, main's history %d runs (stable level: at most %d pooled)\n\n",
		prs, m.trials, 100*tolerance, mainRuns, history.MaxPooledRuns)
	fmt.Println("| baseline | false regressions per 100 PRs (no change) | inconclusive (no change) | 5 % slowdown caught per 100 | inconclusive (slowdown) |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| one run of main (`--baseline`) | %s | %s | %s | %s |\n", per100(single[0].regressed), per100(single[0].inconclusive), per100(single[1].regressed), per100(single[1].inconclusive))
	fmt.Printf("| main's stable level (`--baseline-history`) | %s | %s | %s | %s |\n", per100(pooled[0].regressed), per100(pooled[0].inconclusive), per100(pooled[1].regressed), per100(pooled[1].inconclusive))
}

// stableLevel pools the trials of the runs after the latest change point
// of main's medians, at most history.MaxPooledRuns of them, as
// --baseline-history does.
func stableLevel(trials [][]float64, medians []float64, o changepoint.Options) []float64 {
	start := 0
	if cps := changepoint.Detect(medians, o); len(cps) > 0 {
		start = cps[len(cps)-1].Index
	}
	start = max(start, len(trials)-history.MaxPooledRuns)
	var out []float64
	for _, t := range trials[start:] {
		out = append(out, t...)
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
