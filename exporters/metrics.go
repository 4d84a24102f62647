package exporters

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
)

// The metrics of every phase, named as Prometheus names them: a counter
// ends in _total, a duration is in seconds. The latency histogram is a
// classic one, sent as its _bucket, _sum and _count series.
const (
	MetricRequests      = "loadgate_requests_total"           // completed: succeeded + failed
	MetricSucceeded     = "loadgate_requests_succeeded_total" // passed every expect check
	MetricFailed        = "loadgate_requests_failed_total"    // by kind, as results.json counts errors
	MetricSentBytes     = "loadgate_sent_bytes_total"
	MetricReceivedBytes = "loadgate_received_bytes_total"
	MetricInFlight      = "loadgate_requests_in_flight" // a gauge: sent, not yet answered
	MetricDuration      = "loadgate_request_duration_seconds"
)

// Label is one label of a series.
type Label struct{ Name, Value string }

// Sample is the value of one series at its batch's time.
type Sample struct {
	Name   string  // the metric: loadgate_requests_total
	Labels []Label // sorted by name: the phase's, and the series' own (kind, le)
	Value  float64
}

// Batch is one update of one phase: every series of it at one time, in
// whole milliseconds.
type Batch struct {
	Time    time.Time
	Samples []Sample
}

// Bounds are the upper bounds of the latency histogram's buckets, from
// 100 µs to 63 s, then +Inf: the preferred numbers of the R10 series
// (1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8 in every decade), which are
// 10^(1/10) ≈ 1.26× apart (1.28× at most) and hold the round bounds an
// SLO names (le="0.1", "0.25", "1") and all of Prometheus' default ones.
// histogram_quantile interpolates inside the bucket that holds the
// quantile, which holds loadgate's own value too: it is off by less than
// that bucket, at most 28% of the value between 100 µs and 63 s.
var Bounds = bucketBounds()

// leValues are the le labels of Bounds, as Prometheus formats floats.
var leValues = leLabels(Bounds)

// r10 are the mantissas of the R10 preferred numbers, ×100 µs.
var r10 = []int64{100, 125, 160, 200, 250, 315, 400, 500, 630, 800}

func bucketBounds() []time.Duration {
	var out []time.Duration
	for scale := int64(1); ; scale *= 10 {
		for _, m := range r10 {
			b := time.Duration(m*scale) * time.Microsecond
			if b > 63*time.Second {
				return out
			}
			out = append(out, b)
		}
	}
}

func leLabels(bounds []time.Duration) []string {
	out := make([]string, len(bounds))
	for i, b := range bounds {
		// From whole µs: Duration.Seconds() would read 1.6 s as 1.6000000000000001.
		out[i] = strconv.FormatFloat(float64(b/time.Microsecond)/1e6, 'g', -1, 64)
	}
	return out
}

// phaseLabels are the labels of every series of one run of a phase, in
// name order. trial is the trial's number, "" for a phase run once.
func phaseLabels(scenario, target, caseID, phase, trial string) []Label {
	return []Label{{"case", caseID}, {"phase", phase}, {"scenario", scenario}, {"target", target}, {"trial", trial}}
}

// with is labels and l, in name order.
func with(labels []Label, l Label) []Label {
	out := make([]Label, 0, len(labels)+1)
	out = append(out, labels...)
	out = append(out, l)
	slices.SortFunc(out, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// samples are the series of phase result r, which is its figures so far,
// with inFlight requests waiting. cum is scratch for the histogram, of
// len(Bounds).
func samples(labels []Label, r *results.PhaseResult, inFlight int64, cum []int64) []Sample {
	out := make([]Sample, 0, 20+len(Bounds))
	add := func(name string, labels []Label, v int64) {
		out = append(out, Sample{Name: name, Labels: labels, Value: float64(v)})
	}
	add(MetricRequests, labels, r.Requests)
	add(MetricSucceeded, labels, r.Succeeded)
	// Every kind, zero or not, so that a series exists before its first
	// failure and rate() sees that failure from 0.
	r.Errors.Each(func(kind string, n int64) { add(MetricFailed, with(labels, Label{"kind", kind}), n) })
	add(MetricSentBytes, labels, r.BytesSent)
	add(MetricReceivedBytes, labels, r.BytesReceived)
	add(MetricInFlight, labels, inFlight)
	return durationSamples(out, labels, r.Latency, cum)
}

// durationSamples appends the classic histogram of h, the latencies of the
// succeeded requests as loadgate's own percentiles read them: a bucket
// counts the samples at or below its bound (cumulative), +Inf all of
// them, as _count does; _sum is their sum at the histogram's precision
// (0.1%), since HDR keeps no exact sum.
func durationSamples(out []Sample, labels []Label, h *results.Histogram, cum []int64) []Sample {
	sum := h.CumulativeCounts(Bounds, cum)
	for i, n := range cum[:len(Bounds)] {
		out = append(out, Sample{Name: MetricDuration + "_bucket", Labels: with(labels, Label{"le", leValues[i]}), Value: float64(n)})
	}
	n := h.Count()
	out = append(out,
		Sample{Name: MetricDuration + "_bucket", Labels: with(labels, Label{"le", "+Inf"}), Value: float64(n)},
		Sample{Name: MetricDuration + "_sum", Labels: labels, Value: sum},
		Sample{Name: MetricDuration + "_count", Labels: labels, Value: float64(n)})
	return out
}

// splitLabel reads what tells a run of a phase apart (the runner's
// label): the trial's number, "" for none, and the rest that makes the
// run a series of its own, a search's probe or a warm-up ("probe 1, step
// 400/s, warm-up"). That trials are interleaved says how they were
// ordered, not what they measured: it is left out.
func splitLabel(label string) (trial, rest string) {
	var parts []string
	for i, p := range strings.Split(label, ", ") {
		if i == 0 {
			if n, ok := trialNumber(p); ok {
				trial = n
				continue
			}
		}
		if p != "" && p != "interleaved" {
			parts = append(parts, p)
		}
	}
	return trial, strings.Join(parts, ", ")
}

// trialNumber reads "trial 2/5" or "trial 2 of 3–10" as "2".
func trialNumber(s string) (string, bool) {
	s, ok := strings.CutPrefix(s, "trial ")
	if !ok {
		return "", false
	}
	end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(s)
	}
	if end == 0 {
		return "", false
	}
	return s[:end], true
}
