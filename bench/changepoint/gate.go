package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/history"
	"github.com/loadgate/loadgate/history/changepoint"
)

// mainRuns is how long main's simulated history is when a pull request
// is judged: long enough for the stable level to hold its 30 runs.
const mainRuns = 40

// gates judges simulated pull requests of throughput two ways: against
// the one latest run of main (--baseline), and against the pooled trials
// of main's latest stable level weighed against its runs' spread
// (--baseline-history), without a change
// and with a real slowdown, at each tolerance.
func gates(m model, o changepoint.Options, prs int, tolerances []float64, slowdown float64) {
	fmt.Printf("gates: %d pull requests of %d trials each, rps, main's history %d runs (stable level: at most %d pooled), a real slowdown of %.0f %%\n\n",
		prs, m.trials, mainRuns, history.MaxPooledRuns, 100*slowdown)
	fmt.Println("| tolerance | baseline | false regressions per 100 PRs (no change) | inconclusive (no change) | slowdown caught per 100 | inconclusive (slowdown) |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, tolerance := range tolerances {
		single, pooled := judgeGates(m, o, prs, tolerance, slowdown)
		per100 := func(n int) string { return fmt.Sprintf("%.1f", 100*float64(n)/float64(prs)) }
		for _, row := range []struct {
			name string
			t    [2]tally
		}{{"one run of main (`--baseline`)", single}, {"main's stable level (`--baseline-history`)", pooled}} {
			fmt.Printf("| %.0f %% | %s | %s | %s | %s | %s |\n", 100*tolerance, row.name,
				per100(row.t[0].regressed), per100(row.t[0].inconclusive), per100(row.t[1].regressed), per100(row.t[1].inconclusive))
		}
	}
}

type tally struct{ regressed, inconclusive int }

func (t *tally) count(j regression.Judgement) {
	switch j.Status {
	case regression.Regressed:
		t.regressed++
	case regression.Inconclusive:
		t.inconclusive++
	}
}

// judgeGates tallies, per gate, the verdicts without a change ([0]) and
// with the slowdown ([1]). Each pull request sees a main history of its
// own, drawn from its seed.
func judgeGates(m model, o changepoint.Options, prs int, tolerance, slowdown float64) (single, pooled [2]tally) {
	for pr := range prs {
		r := rand.New(rand.NewPCG(uint64(pr), 2))
		var trials [][]float64
		var medians []float64
		for range mainRuns {
			t := m.run(r, 1000)
			trials = append(trials, t)
			medians = append(medians, regression.Median(t))
		}
		level, runs := stableLevel(trials, medians, o)
		for i, s := range []float64{0, slowdown} {
			cand := m.run(r, 1000*(1-s))
			single[i].count(regression.Judge(trials[len(trials)-1], cand, regression.HigherIsBetter, tolerance))
			pooled[i].count(regression.Judge(level, cand, regression.HigherIsBetter, tolerance).AgainstRuns(runs, cand))
		}
	}
	return single, pooled
}

// stableLevel pools the trials of the runs after the latest change point
// of main's medians, at most history.MaxPooledRuns of them, and lists
// those runs' medians, as --baseline-history does.
func stableLevel(trials [][]float64, medians []float64, o changepoint.Options) (pooled, runs []float64) {
	start := 0
	if cps := changepoint.Detect(medians, o); len(cps) > 0 {
		start = cps[len(cps)-1].Index
	}
	start = max(start, len(trials)-history.MaxPooledRuns)
	for _, t := range trials[start:] {
		pooled = append(pooled, t...)
	}
	return pooled, medians[start:]
}
