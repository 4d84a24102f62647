package results

import (
	"math"
	"slices"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// mergePhase folds the segments' results of one phase of one case into the
// result of the whole load. Counters, dropped arrivals and histograms add
// up, so totals and every percentile of the phase are exact (HDR histograms
// of equal precision merge without loss). The segments ran side by side,
// not one after another, so the phase's wall time is the union of their
// intervals (see unionElapsed) and rps is the total over that time. sp is
// the scenario's phase, for the undivided arrival rate; nil if not found.
func mergePhase(ps []*PhaseResult, sp *scenarios.Phase) *PhaseResult {
	m := &PhaseResult{
		Name: ps[0].Name, Start: ps[0].Start, End: ps[0].End,
		Latency: NewHistogram(), FailedLatency: NewHistogram(), Connect: NewHistogram(),
	}
	var rate scenarios.Rate
	spans := make([]span, 0, len(ps))
	for _, p := range ps {
		m.Concurrency += p.Concurrency
		if p.Start.Before(m.Start) {
			m.Start = p.Start
		}
		if p.End.After(m.End) {
			m.End = p.End
		}
		m.Interrupted = m.Interrupted || p.Interrupted
		// The segments ran at once: each one's stalls are the whole's,
		// and the first that ended early says why.
		m.Stalls = append(m.Stalls, p.Stalls...)
		if m.Ended == "" || (m.EndedDetail == "" && p.EndedDetail != "") {
			m.Ended, m.EndedDetail = p.Ended, p.EndedDetail
		}
		m.GracefulStop = max(m.GracefulStop, p.GracefulStop)
		m.Counters.Merge(p.Counters)
		m.Dropped += p.Dropped
		m.Latency.Merge(p.Latency)
		m.FailedLatency.Merge(p.FailedLatency)
		m.ErrorSamples = MergeErrorSamples(m.ErrorSamples, p.ErrorSamples)
		m.Connect.Merge(p.Connect)
		if p.SendLag != nil {
			if m.SendLag == nil {
				m.SendLag = NewHistogram()
			}
			m.SendLag.Merge(p.SendLag)
		}
		if p.Rate != nil {
			rate.From += p.Rate.From
			rate.To += p.Rate.To
			m.Rate = &rate
		}
		// A single saturated machine makes the whole run's figures suspect.
		m.Generator.worst(p.Generator)
		m.ByName = mergeNamed(m.ByName, p.ByName)
		m.Iterations = MergeIterations(m.Iterations, p.Iterations)
		spans = append(spans, span{p.Start, p.Elapsed})
	}
	if m.Rate != nil && sp != nil && sp.Rate.Open() {
		// Each segment ran an equal share of the rate; the sum of the
		// floating-point shares may be off in the last digit.
		r := sp.Rate
		m.Rate = &r
	}
	m.Elapsed = unionElapsed(spans)
	m.Series = mergeSeries(ps, m.Start)
	if trials, elapsed, ok := mergeTrials(ps); ok {
		m.Trials, m.Elapsed = trials, elapsed
	}
	searches := make([]*SearchResult, len(ps))
	searched := false
	for i, p := range ps {
		searches[i] = p.Search
		searched = searched || p.Search != nil
		if p.Aborted != nil && (m.Aborted == nil || p.Aborted.At < m.Aborted.At) {
			m.Aborted = p.Aborted // the first rule to stop a segment stopped the whole
		}
	}
	if searched {
		var capOK bool
		// Each segment searched its share of the load: the whole has a
		// capacity only when every segment found its own (MergeSearch).
		m.Search, capOK = MergeSearch(searches)
		mergeTrialCapacity(m.Trials, ps, capOK)
	}
	return m
}

// mergeTrialCapacity sets each merged trial's capacity to the sum of the
// segments' trial of the same rank, as MergeSearch does for the phase; to
// 0 when the whole has no capacity (ok false).
func mergeTrialCapacity(trials []Trial, ps []*PhaseResult, ok bool) {
	for k := range trials {
		trials[k].Capacity = 0
		for _, p := range ps {
			if !ok {
				break
			}
			if k < len(p.Trials) {
				trials[k].Capacity += p.Trials[k].Capacity
			}
		}
	}
}

// span is when one segment measured: from start, for elapsed.
type span struct {
	start   time.Time
	elapsed time.Duration
}

// unionElapsed is the wall time during which some segment was measuring:
// the earliest start to the latest end. Segments that start together give
// the length of the longest one; a late segment stretches it, and rps of
// the whole drops accordingly, because the full load only ran while every
// segment did. It never counts less than the longest segment, nor more
// than their sum: segments that ran one after another with idle time in
// between are charged for their measured time only.
func unionElapsed(spans []span) time.Duration {
	var longest, sum time.Duration
	var first, last time.Time
	for i, s := range spans {
		longest = max(longest, s.elapsed)
		sum += s.elapsed
		end := s.start.Add(s.elapsed)
		if i == 0 || s.start.Before(first) {
			first = s.start
		}
		if i == 0 || end.After(last) {
			last = end
		}
	}
	if first.IsZero() {
		return longest
	}
	return min(max(last.Sub(first), longest), sum)
}

// mergeSeries lays every segment's per-second points on one timeline that
// starts at t0, the earliest phase start. A point covers [At, At+1) seconds
// after its own segment's start; it goes to the second of the common
// timeline that it overlaps most, its offset rounded to the nearest second.
// Completed requests, errors and requests in flight add up. The p50 and
// p99 of a second cannot be recomputed from the parts' p50 and p99 (no
// per-second histogram is kept); the largest of the parts' values is
// given, which bounds the true figure from above: a mixture of
// distributions has no more than 1 % of its samples above the largest p99
// of its components.
func mergeSeries(ps []*PhaseResult, t0 time.Time) []Second {
	byAt := map[int]*Second{}
	for _, p := range ps {
		off := 0
		if !p.Start.IsZero() && !t0.IsZero() {
			off = int(math.Round(p.Start.Sub(t0).Seconds()))
		}
		for _, s := range p.Series {
			at := s.At + off
			m := byAt[at]
			if m == nil {
				m = &Second{At: at}
				byAt[at] = m
			}
			m.Completed += s.Completed
			m.Errors += s.Errors
			m.InFlight += s.InFlight
			m.P50 = max(m.P50, s.P50)
			m.P99 = max(m.P99, s.P99)
			m.Connects += s.Connects
			m.ConnectP99 = max(m.ConnectP99, s.ConnectP99)
		}
	}
	out := make([]Second, 0, len(byAt))
	for _, s := range byAt {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Second) int { return a.At - b.At })
	return out
}

// mergeTrials merges trial k of every segment into trial k of the whole:
// requests, failures and drops add up, the wall time is the union of the
// segments' trial k (as for the phase; a trial's start is its segment's
// phase start plus the trials before it), and rps is recomputed over it.
// The trial's p50 and p99 are, as in the series, the largest of the
// segments' (an upper bound). The phase's wall time is then the sum of
// the merged trials', as for a phase run on one machine. ok is false when
// the phase ran no trials, or the segments ran different numbers of them
// (one was interrupted), which leaves the phase's union wall time.
func mergeTrials(ps []*PhaseResult) (trials []Trial, elapsed time.Duration, ok bool) {
	n := len(ps[0].Trials)
	for _, p := range ps {
		if len(p.Trials) != n {
			return nil, 0, false
		}
	}
	if n == 0 {
		return nil, 0, false
	}
	starts := make([]time.Time, len(ps))
	for i, p := range ps {
		starts[i] = p.Start
	}
	trials = make([]Trial, n)
	for k := range n {
		t := &trials[k]
		spans := make([]span, len(ps))
		for i, p := range ps {
			pt := p.Trials[k]
			t.Requests += pt.Requests
			t.Failed += pt.Failed
			t.Dropped += pt.Dropped
			t.P50 = max(t.P50, pt.P50)
			t.P99 = max(t.P99, pt.P99)
			spans[i] = span{starts[i], pt.Elapsed}
			starts[i] = starts[i].Add(pt.Elapsed)
		}
		t.Elapsed = unionElapsed(spans)
		if s := t.Elapsed.Seconds(); s > 0 {
			t.RPS = float64(t.Requests-t.Failed) / s // successes only, as each segment counted
		}
		elapsed += t.Elapsed
	}
	return trials, elapsed, true
}

// mergeNamed adds the entries of a request mix into into, by name, keeping
// the mix order and appending names not seen before.
func mergeNamed(into, from []*NamedResult) []*NamedResult {
	for _, n := range from {
		i := slices.IndexFunc(into, func(x *NamedResult) bool { return x.Name == n.Name })
		if i < 0 {
			into = append(into, &NamedResult{Name: n.Name, Latency: NewHistogram()})
			i = len(into) - 1
		}
		into[i].Counters.Merge(n.Counters)
		into[i].Latency.Merge(n.Latency)
	}
	return into
}
