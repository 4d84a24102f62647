package assertions

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/expr-lang/expr"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// Metrics are the figures a rule sees for one case (or, under
// requests_by_name, for one request of a weighted mix). Field tags are the
// names rules use; docs/rules.md documents each one.
type Metrics struct {
	Requests      int64         `expr:"requests"`       // completed: succeeded + failed
	Succeeded     int64         `expr:"succeeded"`      // passed every expect check
	Failed        int64         `expr:"failed"`         // completed with an error of any kind
	ErrorRate     float64       `expr:"error_rate"`     // failed / requests, 0 when nothing completed
	RPS           float64       `expr:"rps"`            // succeeded per second of measured wall time; the median trial's with trials
	AttemptedRPS  float64       `expr:"attempted_rps"`  // completed (succeeded + failed) per second of measured wall time
	Duration      time.Duration `expr:"duration"`       // measured wall time
	BytesReceived int64         `expr:"bytes_received"` // bytes
	BytesSent     int64         `expr:"bytes_sent"`     // bytes
	TransferRate  float64       `expr:"transfer_rate"`  // bytes received per second
	// Messages counts the response messages of gRPC calls: one per
	// succeeded unary call, every message of a server stream.
	Messages int64 `expr:"messages"`

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

	Latency results.Distribution `expr:"latency"` // latency of succeeded requests (the shortcuts above too)
	// FailedLatency is the latency of failed requests, kept apart so that
	// fast failures never flatter the percentiles.
	FailedLatency results.Distribution `expr:"failed_latency"`
	Connect       results.Distribution `expr:"connect"` // TCP (+ TLS) handshake time of new connections
	// Errors counts failed requests by kind; errors.grpc by status name,
	// where a name never counted reads 0: errors.grpc["UNAVAILABLE"].
	Errors results.ErrorCounts `expr:"errors"`
	// Status counts the HTTP responses that arrived by status code,
	// accepted or not: status["503"], status["other"] for codes outside
	// 100–599. A code never seen reads 0; only HTTP targets count any.
	Status map[string]int64 `expr:"status"`

	// P is p(q): the latency at percentile q, 0 < q ≤ 100. Any other q is
	// an error when the rule runs, since expr cannot check ranges up front.
	P func(q float64) (time.Duration, error) `expr:"p"`
}

// CaseMetrics are a case's Metrics with the figures that describe how its
// load was generated. Those belong to the case, not to one request, so
// requests_by_name does not repeat them; baseline does.
type CaseMetrics struct {
	Metrics

	// Dropped counts open-model arrivals that fell due but were never sent
	// because max_in_flight requests were outstanding; 0 in the closed model.
	Dropped int64 `expr:"dropped"`
	// SendLag is how late open-model requests left against their schedule:
	// the generator's own scheduling error, or the wait behind max_in_flight
	// when the server fell behind; zero in the closed model.
	SendLag results.Distribution `expr:"send_lag"`
	// StallMax is the longest stall of the measured phases: a time of at
	// least results.MinStall (1 s) in which requests were waiting and the
	// server answered none, what a frozen server looks like however short
	// its phase; 0 when there was none. A duration: `stall_max < 2s`.
	StallMax time.Duration `expr:"stall_max"`
	// Trials is how many times the measured phases ran (trials: N); 1 when
	// they ran once. With trials, rps is the median trial's.
	Trials int `expr:"trials"`
	// RPSCV is the coefficient of variation (stddev / mean) of the trials'
	// rps, a fraction; 0 without trials.
	RPSCV float64 `expr:"rps_cv"`
	// Server is the system under test's CPU and memory while the case's
	// measured phases ran. Rules that read it are skipped on a case with no
	// server started or monitored, so a zero never passes for a figure.
	Server ServerMetrics `expr:"server"`
	// Host is the machine's load over the same span; rules that read it are
	// skipped when nothing was sampled.
	Host HostMetrics `expr:"host"`
	// Generator is loadgate's own health while it generated this load.
	Generator GeneratorMetrics `expr:"generator"`

	// Capacity is what the case's search phase found (SPEC §14), requests/s:
	// the highest open-model rate that met the SLO, the median trial's with
	// trials. Rules that read it are skipped on a case without a search
	// phase, or whose search the generator limited, never judged on a 0.
	Capacity float64 `expr:"capacity"`

	// Iterations, IterationsRPS and Iteration describe a flow's whole
	// iterations (SPEC §12): one iteration runs every step once. Rules
	// that read them are skipped on a case whose target has no flow, so
	// zeros never pass for figures.
	Iterations int64 `expr:"iterations"` // completed: succeeded + failed
	// IterationsRPS is succeeded iterations per second of measured wall time.
	IterationsRPS float64 `expr:"iterations_rps"`
	// Iteration is the latency of succeeded iterations, from the
	// iteration's due time to the end of its last step, think times
	// excluded.
	Iteration results.Distribution `expr:"iteration"`
}

// ServerMetrics is what rules see of the system under test (SPEC §3, §8):
// its whole process tree, sampled once a second. The figures cover the
// case's measured phases together, even under a threshold's phase:.
type ServerMetrics struct {
	// CPU is the mean CPU use in percent of one core: 250 means two and a
	// half cores were busy. It is not a fraction, so `server.cpu < 80`,
	// not `80%`; Compile refuses the latter.
	CPU float64 `expr:"cpu"`
	// CPUMax is the busiest one-second sample, in percent of one core.
	CPUMax float64 `expr:"cpu_max"`
	// CPUPerRequest is the server's CPU per succeeded request, in µs of
	// one core, over the window its monitor sampled (results.Usage
	// CPUPerRequestUS). Rules that read it are skipped when there is no
	// figure, never judged on a 0.
	CPUPerRequest float64 `expr:"cpu_per_request"`
	RSS           int64   `expr:"rss"`     // mean resident memory, bytes
	RSSMax        int64   `expr:"rss_max"` // highest resident memory sampled, bytes
	// RSSPct and RSSMaxPct are RSS and RSSMax as a share of the host's
	// RAM, in percent (0 to 100), not a fraction. Rules that read them
	// are skipped where the host's RAM is unknown (not Linux).
	RSSPct    float64 `expr:"rss_pct"`
	RSSMaxPct float64 `expr:"rss_max_pct"`
}

// HostMetrics is the load of the machine the samples were taken on.
type HostMetrics struct {
	// Load1 is the highest 1-minute load average seen.
	Load1 float64 `expr:"load1"`
	// CPU is the whole machine's mean busy share in percent, 0–100.
	CPU float64 `expr:"cpu"`
}

// GeneratorMetrics is what rules see of the load generator (SPEC §6).
type GeneratorMetrics struct {
	// CPU is loadgate's CPU use as a fraction of its usable cores (0–1).
	CPU float64 `expr:"cpu"`
	// LoopCPU is the busiest event loop's use of its thread (0–1); 0 on
	// workers.
	LoopCPU float64 `expr:"loop_cpu"`
	// Saturated is true when the generator, not the server, limited an
	// open-model phase; every report marks such a run invalid.
	Saturated bool `expr:"saturated"`
	// SchedLag is the open-model scheduler's own lateness (p99).
	SchedLag time.Duration `expr:"sched_lag"`
}

// Env is what one rule is evaluated against: one case, narrowed to a phase
// when the threshold names one. Rules are type-checked against its shape
// before any traffic is sent.
type Env struct {
	CaseMetrics

	// Phase is the narrowed phase's name, or "measured" for all measured
	// phases of the case taken together.
	Phase  string         `expr:"phase"`
	Target string         `expr:"target"` // the case's target name
	Matrix map[string]any `expr:"matrix"` // the case's matrix values: int64, float64, bool or string

	// Servers holds every server watched during the case by name: the
	// one of server.* ("server", a target's name, or its key in
	// `monitors:`) and the other entries of `monitors:`, such as the
	// application's database: servers.db.cpu_max < 80. A rule reading a
	// server the case does not watch, or one not sampled, is skipped.
	Servers map[string]ServerMetrics `expr:"servers"`

	// RequestsByName holds the metrics of each request of a weighted
	// `requests:` mix, or of each step of a flow, keyed by its name.
	RequestsByName map[string]Metrics `expr:"requests_by_name"`

	// Baseline is the same case, narrowed to the same phase, in the
	// baseline run; nil when none matches. A rule that reads it is skipped
	// rather than evaluated against nil, so rules need no nil checks.
	Baseline *CaseMetrics `expr:"baseline"`

	// Regressed is regressed(metric, tolerance): whether metric, compared
	// trial by trial, got worse than the baseline's by more than tolerance
	// (a fraction, e.g. 5%) with statistical significance. An inconclusive
	// comparison makes the verdict inconclusive when the rule's outcome
	// depends on it; see Judge.
	Regressed func(metric string, tolerance float64) (bool, error) `expr:"regressed"`
}

// metricsOf converts runner figures into what rules see.
func metricsOf(s results.Stats) Metrics {
	h := s.LatencyHist
	return Metrics{
		Requests:      s.Requests,
		Succeeded:     s.Succeeded,
		Failed:        s.Failed,
		ErrorRate:     s.ErrorRate,
		RPS:           s.RPS,
		AttemptedRPS:  s.AttemptedRPS,
		Duration:      s.Elapsed,
		BytesReceived: s.BytesReceived,
		BytesSent:     s.BytesSent,
		TransferRate:  s.TransferRate,
		Messages:      s.Messages,
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
		FailedLatency: s.FailedLatency,
		Connect:       s.Connect,
		Errors:        s.Errors,
		Status:        s.StatusCodes,
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

// caseMetricsOf converts the figures of a case's measured phases and, when
// it was sampled, its server's usage.
func caseMetricsOf(st results.Stats, u *results.Usage) CaseMetrics {
	cm := CaseMetrics{Metrics: metricsOf(st), Dropped: st.Dropped, SendLag: st.SendLag, StallMax: st.StallMax, Trials: 1,
		Generator: GeneratorMetrics{CPU: st.Generator.CPU, LoopCPU: st.Generator.LoopCPU, Saturated: st.Generator.Saturated, SchedLag: st.Generator.SchedLagP99}}
	if st.Trials != nil {
		cm.Trials, cm.RPSCV = st.Trials.N, st.Trials.RPSCV
	}
	if u != nil {
		cm.Server = serverMetricsOf(u)
		cm.Host = HostMetrics{Load1: u.HostLoad1Max, CPU: u.HostCPUMean}
	}
	cm.Capacity = st.Capacity
	if it := st.Iterations; it != nil {
		cm.Iterations, cm.IterationsRPS, cm.Iteration = it.Iterations, it.RPS, it.Latency
	}
	return cm
}

// serverMetricsOf is what rules see of one server's usage.
func serverMetricsOf(u *results.Usage) ServerMetrics {
	m := ServerMetrics{CPU: u.CPUMean, CPUMax: u.CPUMax, RSS: u.RSSMean, RSSMax: u.RSSMax,
		RSSPct: u.RSSPct, RSSMaxPct: u.RSSMaxPct}
	if u.CPUPerRequestUS != nil {
		m.CPUPerRequest = *u.CPUPerRequestUS
	}
	return m
}

// Names derived from the environment's shape, so documentation, hints and
// checks cannot drift from what rules can actually use.
var (
	// envNames are the top-level names a rule may use.
	envNames = tagNames(reflect.TypeFor[Env]())
	// structNames are the env's struct values (latency, send_lag, …) with
	// their field names, to recognise send_lag_p99 as send_lag.p99.
	structNames = structFields(reflect.TypeFor[Env]())
	// structOrder lists structNames' keys in the environment's order, for
	// hints that name several.
	structOrder = structFieldOrder(reflect.TypeFor[Env]())
	// fieldNames are the fields of each struct a rule can reach, keyed by
	// the type name expr puts in its messages.
	fieldNames = map[string][]string{
		"assertions.Metrics":          tagNames(reflect.TypeFor[Metrics]()),
		"assertions.CaseMetrics":      tagNames(reflect.TypeFor[CaseMetrics]()),
		"results.Distribution":        tagNames(reflect.TypeFor[results.Distribution]()),
		"results.ErrorCounts":         tagNames(reflect.TypeFor[results.ErrorCounts]()),
		"assertions.ServerMetrics":    tagNames(reflect.TypeFor[ServerMetrics]()),
		"assertions.HostMetrics":      tagNames(reflect.TypeFor[HostMetrics]()),
		"assertions.GeneratorMetrics": tagNames(reflect.TypeFor[GeneratorMetrics]()),
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

func structFieldOrder(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		switch {
		case f.Anonymous:
			out = append(out, structFieldOrder(f.Type)...)
		case f.Type.Kind() == reflect.Struct:
			out = append(out, f.Tag.Get("expr"))
		}
	}
	return out
}

// closest suggests the known name nearest to an unknown one, for hints;
// "" when nothing is near enough to be a likely typo.
func closest(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := scenarios.EditDistance(strings.ToLower(name), k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// envOptions are the expr options every rule is compiled with: the
// environment's shape, and arithmetic that keeps a scaled latency a
// latency. On its own, expr turns `baseline.p99 * 1.2` into a float64 that
// then fails to compare with p99 when the rule runs, and refuses
// `p99 / 2` and `p99 / baseline.p99` outright. A rule never divides by
// zero: see divisionGuard.
func envOptions() []expr.Option {
	return []expr.Option{
		expr.Env(Env{}),
		expr.Function("$scale", func(args ...any) (any, error) {
			if d, ok := args[0].(time.Duration); ok {
				return scaleDuration(d, args[1].(float64)), nil
			}
			return scaleDuration(args[1].(time.Duration), args[0].(float64)), nil
		},
			new(func(time.Duration, float64) time.Duration),
			new(func(float64, time.Duration) time.Duration)),
		expr.Function("$divide", func(args ...any) (any, error) {
			d := args[0].(time.Duration)
			switch x := args[1].(type) {
			case time.Duration:
				return float64(d) / float64(x), nil
			case int:
				return scaleDuration(d, 1/float64(x)), nil
			default:
				return scaleDuration(d, 1/x.(float64)), nil
			}
		},
			new(func(time.Duration, time.Duration) float64),
			new(func(time.Duration, int) time.Duration),
			new(func(time.Duration, float64) time.Duration)),
		expr.Operator("*", "$scale"),
		expr.Operator("/", "$divide"),
	}
}

// scaleDuration multiplies d by f, rounding to the nanosecond and clamping
// at the limits of time.Duration instead of wrapping around.
func scaleDuration(d time.Duration, f float64) time.Duration {
	x := math.Round(float64(d) * f)
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(x)
}
