package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/loadgate/loadgate/history"
	"github.com/loadgate/loadgate/history/changepoint"
)

// measuredModel reads the noise of real runs from a history store: the
// longest segment (between change points) of the first series of metric,
// its between-run spread of medians and the median within-run spread of
// trials. A run's own offset is what of the between-run spread the
// trials' spread does not explain: the median of T normal trials has a
// variance of about π/2·σ²/T.
func measuredModel(store, metric string, o changepoint.Options) (model, string, error) {
	entries, err := history.Load(store, "")
	if err != nil {
		return model{}, "", err
	}
	series := history.BuildSeries(entries, history.Filter{Metric: metric})
	if len(series) == 0 {
		return model{}, "", fmt.Errorf("no series of %s in %s", metric, store)
	}
	s := series[0]
	a := history.Analyze(s, o)
	seg := a.Segments[0]
	for _, g := range a.Segments {
		if g.Runs() > seg.Runs() {
			seg = g
		}
	}
	var covs []float64
	trials := 0
	for _, p := range s.Points[seg.Start:seg.End] {
		if len(p.Trials) > 1 {
			covs = append(covs, cov(p.Trials))
			trials = max(trials, len(p.Trials))
		}
	}
	if len(covs) == 0 || seg.Runs() < 3 {
		return model{}, "", fmt.Errorf("%s: the longest level of %s/%s holds %d runs with trials; too few to measure", store, s.Key.Case, metric, len(covs))
	}
	slices.Sort(covs)
	m := model{trialCoV: covs[len(covs)/2], trials: trials}
	m.runCoV = math.Sqrt(max(0, seg.Spread*seg.Spread-math.Pi/2*m.trialCoV*m.trialCoV/float64(trials)))
	where := fmt.Sprintf("measured in %s: %s of case %s, runs %d–%d (%d runs of one level): between-run CoV of medians %.2f %%, median within-run CoV of trials %.2f %%",
		store, metric, s.Key.Case, seg.Start+1, seg.End, seg.Runs(), 100*seg.Spread, 100*m.trialCoV)
	return m, where, nil
}

func cov(xs []float64) float64 {
	var sum, ss float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	if mean == 0 {
		return 0
	}
	return math.Sqrt(ss/float64(len(xs)-1)) / math.Abs(mean)
}
