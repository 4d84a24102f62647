// Command synth writes a synthetic history store: RUNS runs of one
// scenario with CASES cases, each with the six metrics an HTTP case
// records (rps, p50, p90, p99, error_rate, requests) and five trials, in
// Gaussian noise of a given coefficient of variation, with a 10 % step of
// throughput at the middle run. It is what bench/history/store.sh times
// `history show` on and measures the store's size with.
//
//	go run ./bench/history/synth -out DIR [-runs 1000] [-cases 20] [-cov 0.03] [-seed 1]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/loadgate/loadgate/history"
)

func main() {
	out := flag.String("out", "", "the store `DIR` to write (must not hold entries of the same times)")
	runs := flag.Int("runs", 1000, "runs to write")
	cases := flag.Int("cases", 20, "cases per run")
	cov := flag.Float64("cov", 0.03, "coefficient of variation of the noise")
	seed := flag.Uint64("seed", 1, "noise seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "synth: -out DIR is required")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(*seed, 1))
	env := history.Environment{OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC 7763 64-Core Processor", Cores: 4,
		Runner: "RUNNER_ARCH=X64 RUNNER_ENVIRONMENT=github-hosted RUNNER_OS=Linux", Version: "v1.0.0"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	parent := ""
	for r := 0; r < *runs; r++ {
		commit := fmt.Sprintf("%016x%016x%08x", rng.Uint64(), rng.Uint64(), rng.Uint32())
		e := &history.Entry{Schema: history.EntrySchema, Scenario: "synthetic", Time: t0.Add(time.Duration(r) * time.Hour),
			Commit: commit, Parent: parent, Branch: "main", Version: env.Version, Environment: env,
			RunURL: fmt.Sprintf("https://github.com/acme/api/actions/runs/%d", 9000000+r)}
		level := 1.0
		if r >= *runs/2 {
			level = 0.9
		}
		for c := 0; c < *cases; c++ {
			e.Cases = append(e.Cases, synthCase(rng, c, level, *cov))
		}
		if _, err := history.Add(*out, e); err != nil {
			fmt.Fprintln(os.Stderr, "synth:", err)
			os.Exit(1)
		}
		parent = commit
	}
}

func synthCase(rng *rand.Rand, c int, level, cov float64) history.CaseEntry {
	noisy := func(mean float64) (float64, []float64) {
		xs := make([]float64, 5)
		for i := range xs {
			xs[i] = mean * (1 + cov*rng.NormFloat64())
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		return sorted[len(sorted)/2], xs
	}
	rps := 1000.0 * float64(c+1) * level
	ce := history.CaseEntry{ID: fmt.Sprintf("c%02d", c), Target: "api", Load: fmt.Sprintf("%012x", c), Phases: []string{"measured"}}
	add := func(name string, mean float64, trials bool) {
		m, xs := noisy(mean)
		if !trials {
			m, xs = xs[0], nil
		}
		ce.Metrics = append(ce.Metrics, history.Metric{Name: name, Median: m, Trials: xs})
	}
	add("rps", rps, true)
	add("p50", 1e9/rps*8, true)
	add("p90", 1e9/rps*12, false)
	add("p99", 1e9/rps*20, true)
	add("error_rate", 0.001, true)
	add("requests", rps*10, true)
	return ce
}
