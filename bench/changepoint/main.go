// Command changepoint measures, on simulated series, how well the
// history's change-point detection and its gate against main's stable
// level work, and how the gate compares with judging a pull request
// against one previous run of main.
//
// A simulated run has trials: each trial is the level × (1 + a run's
// offset) × (1 + the trial's own noise), the offset drawn once per run
// with -run-cov (what moves a whole run: the machine, the neighbours)
// and the noise per trial with -trial-cov. A run's value in the series is
// the median of its trials, as `history add` records it.
//
//	go run ./bench/changepoint [-seeds 200] [-runs 80] [-at 40] [-steps 0.05,0.1,0.2]
//	    [-run-cov 0.03] [-trial-cov 0.04] [-trials 5] [-tolerance 0.02,0.03] [-slowdown 0.05] [-window 50] [-p-value 0.001]
//	    [-store DIR [-metric rps]]
//
// With -store, the noise is that of real runs: the longest level of the
// first series of -metric in a history store (bench/history/series.sh
// -o DIR writes one).
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/history/changepoint"
)

type model struct {
	runCoV, trialCoV float64
	trials           int
}

// run draws one run's trials at level.
func (m model) run(r *rand.Rand, level float64) []float64 {
	offset := 1 + m.runCoV*r.NormFloat64()
	out := make([]float64, m.trials)
	for i := range out {
		out[i] = level * offset * (1 + m.trialCoV*r.NormFloat64())
	}
	return out
}

func main() {
	seeds := flag.Int("seeds", 200, "simulated series per figure")
	runs := flag.Int("runs", 80, "runs per series")
	at := flag.Int("at", 40, "index of the first run after the step")
	stepsFlag := flag.String("steps", "0.05,0.1,0.2", "relative steps to detect, comma-separated")
	var m model
	flag.Float64Var(&m.runCoV, "run-cov", 0.03, "coefficient of variation of a whole run's level")
	flag.Float64Var(&m.trialCoV, "trial-cov", 0.04, "coefficient of variation of one trial within a run")
	flag.IntVar(&m.trials, "trials", 5, "trials per run")
	tolerancesFlag := flag.String("tolerance", "0.02,0.03", "regressed() tolerances of the gates, comma-separated")
	slowdown := flag.Float64("slowdown", 0.05, "the real slowdown the gates should catch")
	var o changepoint.Options
	flag.IntVar(&o.Window, "window", changepoint.DefaultWindow, "detection window")
	flag.Float64Var(&o.PValue, "p-value", changepoint.DefaultPValue, "detection p-value")
	store := flag.String("store", "", "a history store `DIR` to read the noise of real runs from (overrides -run-cov, -trial-cov, -trials)")
	metric := flag.String("metric", "rps", "the metric whose noise -store reads")
	flag.Parse()
	steps, err := parseList(*stepsFlag)
	tolerances, terr := parseList(*tolerancesFlag)
	if terr != nil {
		err = terr
	}
	if err != nil || m.trials < 1 || *runs < 2 || *at < 1 || *at >= *runs {
		fmt.Fprintln(os.Stderr, "changepoint: bad flags:", err)
		os.Exit(2)
	}

	if *store != "" {
		measured, where, err := measuredModel(*store, *metric, o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "changepoint:", err)
			os.Exit(1)
		}
		m = measured
		fmt.Println(where)
	}
	fmt.Printf("model: run CoV %.1f %%, trial CoV %.1f %%, %d trials a run; series CoV of run medians %.2f %%\n",
		100*m.runCoV, 100*m.trialCoV, m.trials, 100*seriesCoV(m, *seeds))
	fmt.Printf("detection: window %d, p-value %g; %d seeds of %d runs, step at run %d\n\n", o.Window, o.PValue, *seeds, *runs, *at)
	fmt.Println("| series | found within ±1 run | no change point | a change point further away |")
	fmt.Println("|---|---|---|---|")
	for _, s := range append([]float64{0}, steps...) {
		within, none, elsewhere := power(m, o, *seeds, *runs, *at, s)
		name := "noise only"
		if s != 0 {
			name = fmt.Sprintf("step %+.0f %%", 100*s)
		}
		fmt.Printf("| %s | %s | %s | %s |\n", name, share(within, *seeds, s != 0), share(none, *seeds, true), share(elsewhere, *seeds, true))
	}
	fmt.Println()
	gates(m, o, *seeds, tolerances, *slowdown)
}

func share(n, of int, show bool) string {
	if !show {
		return "–"
	}
	return fmt.Sprintf("%.1f %% (%d/%d)", 100*float64(n)/float64(of), n, of)
}

func parseList(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// series simulates runs values at level 1000, stepping by step at index at.
func series(r *rand.Rand, m model, runs, at int, step float64) []float64 {
	xs := make([]float64, runs)
	for i := range xs {
		level := 1000.0
		if i >= at {
			level *= 1 + step
		}
		xs[i] = regression.Median(m.run(r, level))
	}
	return xs
}

func seriesCoV(m model, n int) float64 {
	r := rand.New(rand.NewPCG(99, 99))
	return cov(series(r, m, n*10, n*10, 0))
}

// power counts, over seeds, the series where a change point lies within
// one run of at, where there is none, and where one lies further away.
func power(m model, o changepoint.Options, seeds, runs, at int, step float64) (within, none, elsewhere int) {
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		cps := changepoint.Detect(series(r, m, runs, at, step), o)
		if len(cps) == 0 {
			none++
		}
		hit, other := false, false
		for _, cp := range cps {
			if cp.Index >= at-1 && cp.Index <= at+1 {
				hit = true
			} else {
				other = true
			}
		}
		if hit {
			within++
		}
		if other {
			elsewhere++
		}
	}
	return within, none, elsewhere
}
