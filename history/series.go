package history

import (
	"cmp"
	"slices"
)

// SeriesKey identifies a series: one metric of one case, measured in one
// environment with one load. Runs on another kind of machine, with
// another loadgate, or of a changed load test are another series, so
// that none of those changes is ever reported as a change of the code.
type SeriesKey struct {
	Scenario, Case, Metric string
	Env                    string // Environment.ID
	Load                   string // CaseEntry.Load
}

// Point is one run's value in a series.
type Point struct {
	Run    *Entry
	Value  float64   // the run's median
	Trials []float64 // the run's trials, nil when the metric has none
}

// Series is the values of one SeriesKey, oldest run first.
type Series struct {
	Key         SeriesKey
	Info        MetricInfo
	Environment Environment
	Points      []Point
}

// Values are the series' values in run order.
func (s *Series) Values() []float64 {
	out := make([]float64, len(s.Points))
	for i, p := range s.Points {
		out[i] = p.Value
	}
	return out
}

// Filter narrows the series built; an empty field matches every value.
type Filter struct {
	Scenario, Case, Metric string
}

func (f Filter) matches(k SeriesKey) bool {
	return (f.Scenario == "" || f.Scenario == k.Scenario) &&
		(f.Case == "" || f.Case == k.Case) &&
		(f.Metric == "" || f.Metric == k.Metric)
}

// BuildSeries groups entries, oldest first, into series, ordered by
// scenario, case, metric (in the order of MetricNames), then the
// environment and load that appeared first.
func BuildSeries(entries []*Entry, f Filter) []*Series {
	index := map[SeriesKey]*Series{}
	var out []*Series
	for _, e := range entries {
		env := e.Environment.ID()
		for ci := range e.Cases {
			c := &e.Cases[ci]
			for _, m := range c.Metrics {
				k := SeriesKey{Scenario: e.Scenario, Case: c.ID, Metric: m.Name, Env: env, Load: c.Load}
				if !f.matches(k) {
					continue
				}
				s := index[k]
				if s == nil {
					s = &Series{Key: k, Info: InfoOf(m.Name), Environment: e.Environment}
					index[k] = s
					out = append(out, s)
				}
				s.Points = append(s.Points, Point{Run: e, Value: m.Median, Trials: m.Trials})
			}
		}
	}
	first := make(map[*Series]int, len(out))
	for i, s := range out {
		first[s] = i
	}
	slices.SortStableFunc(out, func(a, b *Series) int {
		return cmp.Or(
			cmp.Compare(a.Key.Scenario, b.Key.Scenario),
			cmp.Compare(a.Key.Case, b.Key.Case),
			cmp.Compare(metricOrder(a.Key.Metric), metricOrder(b.Key.Metric)),
			cmp.Compare(a.Key.Metric, b.Key.Metric),
			cmp.Compare(first[a], first[b]),
		)
	})
	return out
}
