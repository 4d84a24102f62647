package assertions

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"time"

	"github.com/loadgate/loadgate/runner"
)

// Metrics are the figures a rule sees for one case (or, under
// requests_by_name, for one request of a weighted mix). Field tags are the
// names rules use; docs/rules.md documents each one.
type Metrics struct {
	Requests      int64         `expr:"requests"`       // completed: succeeded + failed
	Succeeded     int64         `expr:"succeeded"`      // passed every expect check
	Failed        int64         `expr:"failed"`         // completed with an error of any kind
	ErrorRate     float64       `expr:"error_rate"`     // failed / requests, 0 when nothing completed
	RPS           float64       `expr:"rps"`            // completed per second of measured wall time; the median trial's with trials
	Duration      time.Duration `expr:"duration"`       // measured wall time
	BytesReceived int64         `expr:"bytes_received"` // bytes
	BytesSent     int64         `expr:"bytes_sent"`     // bytes
	TransferRate  float64       `expr:"transfer_rate"`  // bytes received per second

	// Latency shortcuts: the same values as Latency.Min and so on.
	Min    time.Duration `expr:"min"`
	Mean   time.Duration `expr:"mean"`
	Max    time.Duration `expr:"max"`
	StdDev time.Duration `expr:"stddev"`
	P50    time.Duration `expr:"p50"`
	P90    time.Duration `expr:"p90"`
	P95    time.Duration `expr:"p95"`
	P99    time.Duration `expr:"p99"`
	P999   time.Duration `expr:"p999"`

	Latency runner.Distribution `expr:"latency"` // request latency
	Connect runner.Distribution `expr:"connect"` // TCP (+ TLS) handshake time of new connections
	Errors  runner.ErrorCounts  `expr:"errors"`  // failed requests by kind

	// P is p(q): the latency at percentile q, 0 < q ≤ 100. Any other q is
	// an error when the rule runs, since expr cannot check ranges up front.
	P func(q float64) (time.Duration, error) `expr:"p"`
}

// Env is what one rule is evaluated against: one case, narrowed to a phase
// when the threshold names one. Rules are type-checked against its shape
// before any traffic is sent.
type Env struct {
	Metrics

	// Phase is the narrowed phase's name, or "measured" for all measured
	// phases of the case taken together.
	Phase  string         `expr:"phase"`
	Target string         `expr:"target"` // the case's target name
	Matrix map[string]any `expr:"matrix"` // the case's matrix values: int64, float64, bool or string

	// How the load was generated. These describe the case, not one request,
	// so requests_by_name does not repeat them.

	// Dropped counts open-model arrivals that fell due but were never sent
	// because max_in_flight requests were outstanding; 0 in the closed model.
	Dropped int64 `expr:"dropped"`
	// SendLag is how late open-model requests left against their schedule:
	// the generator's own scheduling error, or the wait behind max_in_flight
	// when the server fell behind; zero in the closed model.
	SendLag runner.Distribution `expr:"send_lag"`
	// Trials is how many times the measured phases ran (trials: N); 1 when
	// they ran once. With trials, rps is the median trial's.
	Trials int `expr:"trials"`
	// RPSCV is the coefficient of variation (stddev / mean) of the trials'
	// rps, a fraction; 0 without trials.
	RPSCV float64 `expr:"rps_cv"`

	// RequestsByName holds the metrics of each request of a weighted
	// `requests:` mix, keyed by the request's name.
	RequestsByName map[string]Metrics `expr:"requests_by_name"`

	// Baseline is the same case in a previous run. It is always nil: no
	// baseline is loaded yet, so rules that mention it are skipped.
	Baseline *Metrics `expr:"baseline"`

	// Regressed is regressed(metric, tolerance): whether metric got worse
	// than the baseline by more than tolerance (a fraction, e.g. 5%). It
	// needs a baseline, so rules that call it are skipped for now.
	Regressed func(metric string, tolerance float64) bool `expr:"regressed"`
}

// metricsOf converts runner figures into what rules see.
func metricsOf(s runner.Stats) Metrics {
	h := s.LatencyHist
	return Metrics{
		Requests:      s.Requests,
		Succeeded:     s.Succeeded,
		Failed:        s.Failed,
		ErrorRate:     s.ErrorRate,
		RPS:           s.RPS,
		Duration:      s.Elapsed,
		BytesReceived: s.BytesReceived,
		BytesSent:     s.BytesSent,
		TransferRate:  s.TransferRate,
		Min:           s.Latency.Min,
		Mean:          s.Latency.Mean,
		Max:           s.Latency.Max,
		StdDev:        s.Latency.StdDev,
		P50:           s.Latency.P50,
		P90:           s.Latency.P90,
		P95:           s.Latency.P95,
		P99:           s.Latency.P99,
		P999:          s.Latency.P999,
		Latency:       s.Latency,
		Connect:       s.Connect,
		Errors:        s.Errors,
		P: func(q float64) (time.Duration, error) {
			// The negated test also refuses NaN.
			if !(q > 0 && q <= 100) {
				return 0, fmt.Errorf("p(%v): the percentile must be above 0 and at most 100", q)
			}
			if h == nil {
				return 0, nil
			}
			return h.Quantile(q), nil
		},
	}
}

// Names derived from the environment's shape, so documentation, hints and
// checks cannot drift from what rules can actually use.
var (
	// envNames are the top-level names a rule may use.
	envNames = tagNames(reflect.TypeFor[Env]())
	// metricNames are the values regressed() can compare: every number of
	// Metrics, with dotted paths into its nested structs.
	metricNames = numericPaths(reflect.TypeFor[Metrics](), "")
	// structNames are the env's struct values (latency, send_lag, …) with
	// their field names, to recognise send_lag_p99 as send_lag.p99.
	structNames = structFields(reflect.TypeFor[Env]())
	// fieldNames are the fields of each struct a rule can reach, keyed by
	// the type name expr puts in its messages.
	fieldNames = map[string][]string{
		"assertions.Metrics":  tagNames(reflect.TypeFor[Metrics]()),
		"runner.Distribution": tagNames(reflect.TypeFor[runner.Distribution]()),
		"runner.ErrorCounts":  tagNames(reflect.TypeFor[runner.ErrorCounts]()),
	}
)

func tagNames(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		if f.Anonymous {
			names = append(names, tagNames(f.Type)...)
			continue
		}
		names = append(names, f.Tag.Get("expr"))
	}
	return names
}

func structFields(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	for f := range t.Fields() {
		switch {
		case f.Anonymous:
			maps.Copy(out, structFields(f.Type))
		case f.Type.Kind() == reflect.Struct:
			out[f.Tag.Get("expr")] = tagNames(f.Type)
		}
	}
	return out
}

func numericPaths(t reflect.Type, prefix string) []string {
	var names []string
	for f := range t.Fields() {
		name := prefix + f.Tag.Get("expr")
		switch f.Type.Kind() {
		case reflect.Struct:
			names = append(names, numericPaths(f.Type, name+".")...)
		case reflect.Int64, reflect.Float64:
			names = append(names, name)
		}
	}
	return names
}

// closest suggests the known name nearest to an unknown one, for hints;
// "" when nothing is near enough to be a likely typo.
func closest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
