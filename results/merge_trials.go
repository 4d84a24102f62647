package results

import (
	"cmp"
	"slices"
	"time"
)

// mergeTrials folds the repetitions of one phase into one result: counters
// add, histograms merge, wall times add, the time series run on, and each
// repetition's own figures are kept in Trials.
func MergeTrialRuns(runs []*PhaseResult) *PhaseResult {
	first := runs[0]
	m := &PhaseResult{
		Name: first.Name, Concurrency: first.Concurrency, Start: first.Start,
		Latency: NewHistogram(), FailedLatency: NewHistogram(), Connect: NewHistogram(), Rate: first.Rate,
	}
	if first.SendLag != nil {
		m.SendLag = NewHistogram()
	}
	for _, n := range first.ByName {
		m.ByName = append(m.ByName, &NamedResult{Name: n.Name, Latency: NewHistogram()})
	}
	if first.Iterations != nil {
		m.Iterations = &IterationResult{Latency: NewHistogram()}
	}
	offset := 0
	var before time.Duration // measured time of the runs before r
	for _, r := range runs {
		// A run's stalls, at their time in the merged phase; the first
		// run that ended early says why the whole did.
		for _, st := range r.Stalls {
			st.At += before
			m.Stalls = append(m.Stalls, st)
		}
		before += r.Elapsed
		if m.Ended == "" || (m.EndedDetail == "" && r.EndedDetail != "") {
			m.Ended, m.EndedDetail = r.Ended, r.EndedDetail
		}
		m.GracefulStop = r.GracefulStop
		m.End = r.End
		m.Elapsed += r.Elapsed
		m.Interrupted = m.Interrupted || r.Interrupted
		if m.Aborted == nil {
			m.Aborted = r.Aborted
		}
		m.Counters.Merge(r.Counters)
		m.Dropped += r.Dropped
		m.Generator.worst(r.Generator)
		m.Latency.Merge(r.Latency)
		m.FailedLatency.Merge(r.FailedLatency)
		m.ErrorSamples = MergeErrorSamples(m.ErrorSamples, r.ErrorSamples)
		m.Connect.Merge(r.Connect)
		if m.SendLag != nil {
			m.SendLag.Merge(r.SendLag)
		}
		for i, n := range r.ByName {
			m.ByName[i].Counters.Merge(n.Counters)
			m.ByName[i].Latency.Merge(n.Latency)
		}
		m.Iterations = MergeIterations(m.Iterations, r.Iterations)
		for _, s := range r.Series {
			s.At += offset
			m.Series = append(m.Series, s)
		}
		offset += len(r.Series)
		t := Trial{Requests: r.Requests, Failed: r.Failed, Dropped: r.Dropped, Elapsed: r.Elapsed,
			P50: r.Latency.Quantile(50), P99: r.Latency.Quantile(99)}
		if r.Search != nil {
			t.Capacity = r.Search.Capacity
		}
		if s := r.Elapsed.Seconds(); s > 0 {
			t.RPS = float64(r.Succeeded) / s
		}
		m.Trials = append(m.Trials, t)
	}
	m.Search = medianSearch(runs)
	return m
}

// MergeIterations adds the iterations of b to a, either of which may be
// nil (a target without a flow), and returns the sum: counters add,
// histograms merge. a is updated in place when it is not nil.
func MergeIterations(a, b *IterationResult) *IterationResult {
	if b == nil {
		return a
	}
	if a == nil {
		a = &IterationResult{Latency: NewHistogram()}
	}
	a.Iterations += b.Iterations
	a.Succeeded += b.Succeeded
	a.Failed += b.Failed
	if b.Latency != nil {
		a.Latency.Merge(b.Latency)
	}
	return a
}

// medianSearch is the search of the median trial by capacity (the lower
// of the two middle ones), limited by the generator if any trial was: the
// search a merged phase of several trials shows.
func medianSearch(runs []*PhaseResult) *SearchResult {
	var searches []*SearchResult
	limited := false
	for _, r := range runs {
		if r.Search != nil {
			searches = append(searches, r.Search)
			limited = limited || r.Search.LimitedByGenerator
		}
	}
	if len(searches) == 0 {
		return nil
	}
	slices.SortStableFunc(searches, func(a, b *SearchResult) int { return cmp.Compare(a.Capacity, b.Capacity) })
	m := *searches[(len(searches)-1)/2]
	m.LimitedByGenerator = limited
	return &m
}
