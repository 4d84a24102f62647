package results

import (
	"maps"
	"slices"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// ErrorCounts counts failed requests by kind.
type ErrorCounts struct {
	Connect  int64 `json:"connect" expr:"connect"`
	Timeout  int64 `json:"timeout" expr:"timeout"`
	Reset    int64 `json:"reset" expr:"reset"`
	Status   int64 `json:"status" expr:"status"`
	Length   int64 `json:"length" expr:"length"`
	Check    int64 `json:"check" expr:"check"`
	Extract  int64 `json:"extract" expr:"extract"`
	Protocol int64 `json:"protocol" expr:"protocol"`
	// GRPC counts the gRPC calls that ended with a status expect.code
	// does not accept, by the status's name ("UNAVAILABLE"); nil when none
	// did. A code never seen reads 0 in rules.
	GRPC map[string]int64 `json:"grpc,omitempty" expr:"grpc"`
	// Unfinished counts the requests still waiting for a response when
	// their phase's graceful stop ran out, or the run was interrupted or
	// aborted (SPEC §3).
	Unfinished int64 `json:"unfinished,omitempty" expr:"unfinished"`
	Other      int64 `json:"other" expr:"other"`
}

// AddGRPC counts n gRPC calls that ended with status code.
func (c *ErrorCounts) AddGRPC(code string, n int64) {
	if c.GRPC == nil {
		c.GRPC = map[string]int64{}
	}
	c.GRPC[code] += n
}

// GRPCTotal is the number of gRPC calls that ended with an unaccepted status.
func (c ErrorCounts) GRPCTotal() int64 {
	var n int64
	for _, v := range c.GRPC {
		n += v
	}
	return n
}

// EachGRPC calls fn for every gRPC status counted, by name.
func (c ErrorCounts) EachGRPC(fn func(code string, n int64)) {
	for _, code := range slices.Sorted(maps.Keys(c.GRPC)) {
		fn(code, c.GRPC[code])
	}
}

// Merge adds every count of o.
func (c *ErrorCounts) Merge(o ErrorCounts) {
	c.Connect += o.Connect
	c.Timeout += o.Timeout
	c.Reset += o.Reset
	c.Status += o.Status
	c.Length += o.Length
	c.Check += o.Check
	c.Extract += o.Extract
	c.Protocol += o.Protocol
	for code, n := range o.GRPC {
		c.AddGRPC(code, n)
	}
	c.Unfinished += o.Unfinished
	c.Other += o.Other
}

// Total is the number of failed requests.
func (c ErrorCounts) Total() int64 {
	return c.Connect + c.Timeout + c.Reset + c.Status + c.Length + c.Check + c.Extract + c.Protocol + c.GRPCTotal() + c.Unfinished + c.Other
}

// Each calls fn for every kind in report order, including zero counts,
// except "grpc", which only a result with gRPC statuses counted has: the
// sum over its codes (EachGRPC).
func (c ErrorCounts) Each(fn func(kind string, n int64)) {
	fn("connect", c.Connect)
	fn("timeout", c.Timeout)
	fn("reset", c.Reset)
	fn("status", c.Status)
	fn("length", c.Length)
	fn("check", c.Check)
	fn("extract", c.Extract)
	fn("protocol", c.Protocol)
	if len(c.GRPC) > 0 {
		fn("grpc", c.GRPCTotal())
	}
	fn("unfinished", c.Unfinished)
	fn("other", c.Other)
}

// MergeErrorSamples keeps, for each kind, the first sample of dst, else src's.
func MergeErrorSamples(dst map[string]string, src map[string]string) map[string]string {
	for k, v := range src {
		if dst == nil {
			dst = map[string]string{}
		}
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
	return dst
}

// Second is one point of a phase's per-second time series.
type Second struct {
	At        int           `json:"t"`         // seconds since the phase started; the point covers [At, At+1)
	Completed int64         `json:"completed"` // attempted: succeeded + failed
	Errors    int64         `json:"errors"`    // failed
	P50       time.Duration `json:"p50_ns"`    // of the second's succeeded requests
	P99       time.Duration `json:"p99_ns"`
	InFlight  int64         `json:"in_flight"` // requests outstanding at the end of the second
	// OldestWait is how long the oldest of those had been waiting (from
	// when it was due): a lower bound of its latency; 0 when none waited.
	OldestWait time.Duration `json:"oldest_wait_ns,omitempty"`
	// Connects counts the connections opened by the requests that ended
	// in the second; 0 when none opened.
	Connects int64 `json:"connects,omitempty"`
	// ConnectP99 is the 99th percentile of those connections' connect
	// times: how opening them went as a ramp filled the server (the last
	// connections of a ramp are the last seconds' with connects).
	ConnectP99 time.Duration `json:"connect_p99_ns,omitempty"`
}

// Counters are the additive figures of a phase or of one named request.
type Counters struct {
	Requests      int64       `json:"requests"`  // completed: succeeded + failed
	Succeeded     int64       `json:"succeeded"` // passed every expect check
	Failed        int64       `json:"failed"`
	Errors        ErrorCounts `json:"errors"`
	BytesSent     int64       `json:"bytes_sent"`
	BytesReceived int64       `json:"bytes_received"`
	// Messages counts the response messages of gRPC calls: one per
	// succeeded unary call, every message of a server stream.
	Messages int64 `json:"messages,omitempty"`
	// StatusCodes counts the HTTP responses that arrived, by status code
	// ("200", "503"; codes outside 100–599 under "other"), accepted by
	// expect or not; nil for a target other than HTTP/1.1 or HTTP/2, or
	// when no response arrived. A code never seen reads 0 in rules.
	StatusCodes map[string]int64 `json:"status_codes,omitempty"`
}

// Merge adds o's counts.
func (c *Counters) Merge(o Counters) {
	c.Requests += o.Requests
	c.Succeeded += o.Succeeded
	c.Failed += o.Failed
	c.Errors.Merge(o.Errors)
	c.BytesSent += o.BytesSent
	c.BytesReceived += o.BytesReceived
	c.Messages += o.Messages
	mergeStatus(&c.StatusCodes, o.StatusCodes)
}

// NamedResult is what one entry of a weighted `requests:` mix measured.
type NamedResult struct {
	Name string `json:"name"`
	Counters
	Latency *Histogram `json:"latency"`
}

// PhaseResult is everything one phase of one case measured. Histograms hold
// every latency of the phase; derived figures come from Stats.
type PhaseResult struct {
	Name        string        `json:"name"`
	Warmup      bool          `json:"warmup,omitempty"`
	Concurrency int           `json:"concurrency"`
	Start       time.Time     `json:"start"`
	End         time.Time     `json:"end"`
	Elapsed     time.Duration `json:"elapsed_ns"` // measured wall time: End − Start
	Interrupted bool          `json:"interrupted,omitempty"`
	// Ended says why the phase stopped sending: duration, requests, data,
	// aborted, interrupted, search, generator, server, schedule, time
	// limit or client setup.
	Ended string `json:"ended,omitempty"`
	// EndedDetail says in words what cut a phase short ("data source
	// `users` ran out of unique rows (2)"); empty when it ran its course.
	EndedDetail string `json:"ended_detail,omitempty"`
	// GracefulStop is how long the requests in flight at the phase's stop
	// were given to be answered; those that were not are errors.unfinished.
	GracefulStop time.Duration `json:"graceful_stop_ns,omitempty"`
	// Stalls are the times of at least MinStall in which requests were
	// waiting and none was answered, in order.
	Stalls []Stall `json:"stalls,omitempty"`
	Counters
	// Latency is from when a succeeded request was due (the worker became
	// ready, or its scheduled arrival) to its last response byte. Failed
	// requests are not in it: a refused connection is fast, and counting it
	// would make a dead server look quick.
	Latency *Histogram `json:"latency"`
	// FailedLatency is the same measure for the failed requests.
	FailedLatency *Histogram `json:"failed_latency,omitempty"`
	// ErrorSamples holds the first message seen of each error kind, keyed by
	// kind ("connect": "dial tcp 127.0.0.1:18099: connect: connection refused"),
	// so that a report can say what went wrong, not only how often.
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	// Connect is the TCP handshake (+ TLS) time of every new connection.
	Connect *Histogram     `json:"connect"`
	Series  []Second       `json:"series"`
	ByName  []*NamedResult `json:"by_name,omitempty"` // in mix order; empty for a single-request target

	// Open model only.
	Rate *scenarios.Rate `json:"rate,omitempty"` // the requested arrival rate
	// Dropped counts arrivals that were due before the phase ended but were
	// never sent because max_in_flight requests were outstanding.
	Dropped int64 `json:"dropped,omitempty"`
	// SendLag is how late each request left relative to its scheduled time:
	// the generator's own scheduling error (or back-pressure from the cap).
	SendLag *Histogram `json:"send_lag,omitempty"`

	// Generator is loadgate's own health during the phase.
	Generator Generator `json:"generator"`

	// Search is set for a capacity-search phase (SPEC §14): its probes and
	// what they found. Counters and histograms above then cover the
	// measured part of every probe together.
	Search *SearchResult `json:"search,omitempty"`
	// Aborted is set when an abort: true threshold stopped this phase.
	Aborted *Aborted `json:"aborted,omitempty"`

	// Iterations is set for a flow target (SPEC §12): Counters and
	// Latency above then describe the steps' requests together, ByName
	// each step, and this the whole iterations.
	Iterations *IterationResult `json:"iterations,omitempty"`

	// Trials holds each run of a phase with trials: N > 1; the counters and
	// histograms above then cover all trials together.
	Trials []Trial `json:"trials,omitempty"`
	// TrialsStop says why adaptive trials (trials: {min, max, until:
	// decisive}) stopped where they did: TrialsDecisive, TrialsMax,
	// TrialsNoJudge or TrialsInterrupted; "" for a fixed count.
	TrialsStop string `json:"trials_stop,omitempty"`
}

// Trial is one repetition of a measured phase.
type Trial struct {
	// Capacity is the capacity a search phase's trial found; 0 otherwise.
	Capacity float64 `json:"capacity,omitempty"`
	Requests int64   `json:"requests"`
	Failed   int64   `json:"failed"`
	// RPS counts the trial's succeeded requests per second.
	Dropped int64         `json:"dropped,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	RPS     float64       `json:"rps"`
	P50     time.Duration `json:"p50_ns"`
	P99     time.Duration `json:"p99_ns"`
}

// ErrorRate is the trial's failed share of its requests; 0 when it
// completed none.
func (t Trial) ErrorRate() float64 {
	if t.Requests == 0 {
		return 0
	}
	return float64(t.Failed) / float64(t.Requests)
}

// IterationResult is what the iterations of a flow measured: one
// iteration runs every step of the flow once. Its latency runs from the
// iteration's due time to the end of its last step, think times excluded;
// it counts succeeded iterations only, as Latency does for requests.
type IterationResult struct {
	Iterations int64      `json:"iterations"` // completed: succeeded + failed
	Succeeded  int64      `json:"succeeded"`  // every step succeeded
	Failed     int64      `json:"failed"`     // ended by a failed step
	Latency    *Histogram `json:"latency"`
}

// CaseResult is one target × matrix combination: its phases in order.
type CaseResult struct {
	ID     string                  `json:"id"`
	Target string                  `json:"target"`
	Matrix []scenarios.MatrixValue `json:"-"`
	Phases []*PhaseResult          `json:"phases"`
	// Err is set when the case could not be carried out (e.g. no request completed).
	Err string `json:"error,omitempty"`
	// Server is the system under test's CPU and memory while this case's
	// measured phases ran, with the host's load; nil when no server was
	// started or monitored. Usage.PID is 0 when only the host was sampled.
	Server *Usage `json:"server,omitempty"`
	// ServerName names the server: "server", or its target's name.
	ServerName string `json:"server_name,omitempty"`
	// Servers are the other servers watched over the same span, the
	// entries of the scenario's `monitors:` (Server is then the first of
	// them when nothing else stands for server.*).
	Servers []NamedUsage `json:"servers,omitempty"`
}

// Measured returns the case's non-warm-up phases; name narrows to one phase.
func (c *CaseResult) Measured(name string) []*PhaseResult {
	var out []*PhaseResult
	for _, p := range c.Phases {
		if p.Warmup || (name != "" && p.Name != name) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// ScenarioResult is one scenario's run.
type ScenarioResult struct {
	Scenario    *scenarios.Scenario `json:"-"`
	Start       time.Time           `json:"start"`
	End         time.Time           `json:"end"`
	Interrupted bool                `json:"interrupted,omitempty"`
	// Aborted is set when an abort: true threshold stopped the run: the
	// first that failed (its phase has it too). The run is not
	// interrupted, but it did not finish; the CLI exits 1.
	Aborted *Aborted      `json:"aborted,omitempty"`
	Cases   []*CaseResult `json:"cases"`
}
