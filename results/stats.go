package results

import (
	"fmt"
	"slices"
	"time"
)

// Distribution is the summary of one histogram, in the units rules use.
type Distribution struct {
	Min    time.Duration `json:"min_ns" expr:"min"`
	Mean   time.Duration `json:"mean_ns" expr:"mean"`
	Max    time.Duration `json:"max_ns" expr:"max"`
	StdDev time.Duration `json:"stddev_ns" expr:"stddev"`
	P50    time.Duration `json:"p50_ns" expr:"p50"`
	P90    time.Duration `json:"p90_ns" expr:"p90"`
	P95    time.Duration `json:"p95_ns" expr:"p95"`
	P99    time.Duration `json:"p99_ns" expr:"p99"`
	P999   time.Duration `json:"p999_ns" expr:"p999"`
}

// Distribute summarises h; an empty histogram gives all zeros.
func Distribute(h *Histogram) Distribution {
	if h == nil || h.Count() == 0 {
		return Distribution{}
	}
	return Distribution{
		Min: h.Min(), Mean: h.Mean(), Max: h.Max(), StdDev: h.StdDev(),
		P50: h.Quantile(50), P90: h.Quantile(90), P95: h.Quantile(95),
		P99: h.Quantile(99), P999: h.Quantile(99.9),
	}
}

// Stats are the derived figures of one or more phases taken together.
type Stats struct {
	Counters
	Elapsed      time.Duration `json:"elapsed_ns"`    // summed measured wall time
	ErrorRate    float64       `json:"error_rate"`    // Failed / Requests; 0 when nothing completed
	RPS          float64       `json:"rps"`           // Succeeded per second of Elapsed: throughput counts successes only
	AttemptedRPS float64       `json:"attempted_rps"` // Requests (succeeded + failed) per second of Elapsed
	TransferRate float64       `json:"transfer_rate"` // BytesReceived per second of Elapsed
	Latency      Distribution  `json:"latency"`       // of succeeded requests
	// FailedLatency describes the failed requests, kept apart from Latency.
	FailedLatency Distribution `json:"failed_latency,omitzero"`
	// ErrorSamples is the first message of each error kind.
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	Connect      Distribution      `json:"connect"`
	Dropped      int64             `json:"dropped,omitempty"` // open model: arrivals never sent (max_in_flight)
	// SendLag is the open model's scheduling error; zero in the closed model.
	SendLag Distribution `json:"send_lag,omitzero"`
	// Capacity is what the case's search phases found, requests/s (with
	// trials, the median trial's); 0 without a search phase. Search holds
	// the search itself (the last search phase's), nil without one.
	Capacity float64       `json:"capacity,omitempty"`
	Search   *SearchResult `json:"search,omitempty"`
	// Iterations summarises a flow's iterations; nil for other targets.
	Iterations *IterationStats `json:"iterations,omitempty"`
	// Generator is loadgate's own health across the phases (worst of them).
	Generator Generator `json:"generator"`
	// StallMax is the longest stall of the phases (Stall), 0 when none
	// lasted MinStall.
	StallMax time.Duration `json:"stall_max_ns,omitempty"`
	// Waiting, in the figures of a phase still running (abort rules),
	// counts the requests in flight that have waited a tick or more; their
	// ages are in Latency as lower bounds. 0 in a finished phase.
	Waiting int64 `json:"-"`
	// Trials is set when the phases ran trials: N > 1; RPS is then their median.
	Trials *Spread `json:"trials,omitempty"`
	// LatencyHist is the merged latency histogram, for arbitrary percentiles.
	LatencyHist *Histogram `json:"-"`
}

// Summarize merges phases (counters add, histograms merge, wall times add)
// and derives rates and distributions once.
func Summarize(phases []*PhaseResult) Stats {
	var s Stats
	lat, conn, lag, failed := NewHistogram(), NewHistogram(), NewHistogram(), NewHistogram()
	var trials []Trial
	var search *PhaseResult // the last search phase
	for _, p := range phases {
		if p.Search != nil {
			search = p
		}
		s.Counters.Merge(p.Counters)
		s.Elapsed += p.Elapsed
		s.Dropped += p.Dropped
		s.Generator.worst(p.Generator)
		for _, st := range p.Stalls {
			s.StallMax = max(s.StallMax, st.Duration)
		}
		lat.Merge(p.Latency)
		failed.Merge(p.FailedLatency)
		s.ErrorSamples = MergeErrorSamples(s.ErrorSamples, p.ErrorSamples)
		conn.Merge(p.Connect)
		lag.Merge(p.SendLag)
		trials = append(trials, p.Trials...)
	}
	s = derive(s, lat, conn)
	s.Iterations = summarizeIterations(phases, s.Elapsed)
	s.SendLag = Distribute(lag)
	s.FailedLatency = Distribute(failed)
	if s.Trials = spread(trials); s.Trials != nil {
		// Rules and reports quote the median trial: one noisy repetition
		// must not decide a verdict (SPEC §2, trials).
		s.RPS = s.Trials.RPSMedian
	}
	if search != nil {
		s.Search = search.Search
		s.Capacity = phaseCapacity(search)
	}
	return s
}

// phaseCapacity is the capacity a search phase found: with trials, the
// median of the trials' (SPEC §14, like rps), else its search's.
func phaseCapacity(p *PhaseResult) float64 {
	if len(p.Trials) < 2 {
		return p.Search.Capacity
	}
	caps := make([]float64, len(p.Trials))
	for i, t := range p.Trials {
		caps[i] = t.Capacity
	}
	slices.Sort(caps)
	return median(caps)
}

// SummarizeNamed gives the Stats of one request of a mix across phases.
func SummarizeNamed(phases []*PhaseResult, name string) (Stats, bool) {
	var s Stats
	found := false
	lat := NewHistogram()
	for _, p := range phases {
		s.Elapsed += p.Elapsed
		for _, n := range p.ByName {
			if n.Name == name {
				found = true
				s.Counters.Merge(n.Counters)
				lat.Merge(n.Latency)
			}
		}
	}
	return derive(s, lat, nil), found
}

func derive(s Stats, lat, conn *Histogram) Stats {
	if s.Requests > 0 {
		s.ErrorRate = float64(s.Failed) / float64(s.Requests)
	}
	if secs := s.Elapsed.Seconds(); secs > 0 {
		s.RPS = float64(s.Succeeded) / secs
		s.AttemptedRPS = float64(s.Requests) / secs
		s.TransferRate = float64(s.BytesReceived) / secs
	}
	s.Latency = Distribute(lat)
	s.Connect = Distribute(conn)
	s.LatencyHist = lat
	return s
}

// CarriedOut says why measured phases could not do their job, or "" when
// they could: a phase in which no request succeeded measured nothing about
// the server, whatever its thresholds would make of the zeros. The reason
// names the phase, the dominant error kind and its first message, in the
// words a user needs to fix it ("connect: dial tcp 127.0.0.1:18099:
// connect: connection refused").
func CarriedOut(measured []*PhaseResult) string {
	if len(measured) == 0 {
		return "no measured phase ran"
	}
	for _, p := range measured {
		if p.Succeeded > 0 {
			continue
		}
		if p.Requests == 0 {
			return fmt.Sprintf("phase %q: no request completed", p.Name)
		}
		kind, n := dominantError(p.Errors)
		msg := fmt.Sprintf("phase %q: no request succeeded (%d failed, %d by %s", p.Name, p.Failed, n, kind)
		if sample := p.ErrorSamples[kind]; sample != "" {
			msg += ": " + sample
		}
		return msg + ")"
	}
	return ""
}

// dominantError is the kind that failed most often; the earlier kind in
// report order wins a tie.
func dominantError(c ErrorCounts) (kind string, n int64) {
	c.Each(func(k string, v int64) {
		if v > n {
			kind, n = k, v
		}
	})
	return kind, n
}

// IterationStats are the derived figures of a flow's iterations.
type IterationStats struct {
	Iterations int64        `json:"iterations"`
	Succeeded  int64        `json:"succeeded"`
	Failed     int64        `json:"failed"`
	RPS        float64      `json:"rps"` // succeeded iterations per second of measured wall time
	Latency    Distribution `json:"latency"`
}

// summarizeIterations merges the phases' iterations; nil when none ran a flow.
func summarizeIterations(phases []*PhaseResult, elapsed time.Duration) *IterationStats {
	var st *IterationStats
	lat := NewHistogram()
	for _, p := range phases {
		it := p.Iterations
		if it == nil {
			continue
		}
		if st == nil {
			st = &IterationStats{}
		}
		st.Iterations += it.Iterations
		st.Succeeded += it.Succeeded
		st.Failed += it.Failed
		lat.Merge(it.Latency)
	}
	if st == nil {
		return nil
	}
	if secs := elapsed.Seconds(); secs > 0 {
		st.RPS = float64(st.Succeeded) / secs
	}
	st.Latency = Distribute(lat)
	return st
}
