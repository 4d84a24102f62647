package scenarios

import (
	"crypto/tls"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Pos is a place in a scenario file. Line and Col are 1-based, as editors
// and GitHub annotations count them. The zero Pos means "no position".
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// String renders file:line:col, dropping the parts that are unknown.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Error is one diagnostic about a scenario file, always tied to a position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos == (Pos{}) {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Errorf builds an Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList collects every diagnostic of a file so that one validate run
// reports all problems, not only the first.
type ErrorList []*Error

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Err returns nil for an empty list, so callers can `return errs.Err()`.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Severity says whether a failing threshold fails the run or only warns.
type Severity string

// Severities a threshold can carry; SeverityFail is the default.
const (
	SeverityFail Severity = "fail"
	SeverityWarn Severity = "warn"
)

// Scenario is one fully resolved scenario file: variables substituted,
// defaults applied, matrix expanded into Cases. Everything the runner and
// the rules need is here; nothing refers back to YAML.
type Scenario struct {
	File        string // path as given on the command line
	Hash        string // hex SHA-256 of the file's bytes: identifies the scenario across runs
	Name        string
	Description string
	Pos         Pos               // of the `name:` value
	Vars        map[string]string // effective values after --var and LOADGATE_VAR_* overrides
	Matrix      []Axis            // in file order
	Targets     []Target          // as resolved for the first matrix combination
	Thresholds  []Threshold
	Cases       []Case // targets × matrix combinations, target-major, axes in file order
	// Server is the system under test started for the scenario's cases, as
	// resolved for the first matrix combination (Case.Server has each
	// case's); nil when the scenario reaches a server started elsewhere.
	Server *Server
	// Data holds the named test data sources of `data:` (SPEC §12), in
	// file order; flows refer to them by index.
	Data []*DataSource
	// Monitor names a process started elsewhere whose CPU and memory are
	// sampled during the run; nil for none. Ignored when Server is set.
	Monitor *Monitor
	// Secrets are the scenario's secret values, longest first: those of
	// credential headers (Authorization, Cookie, X-Api-Key…), URL
	// passwords and secret-looking query parameters, of the variables
	// substituted into them, and of the variables marked secret. Redact
	// replaces them; values shorter than MinSecretLen are left out.
	Secrets Redactor
}

// Server is how to start, await and stop a system under test (SPEC §8).
type Server struct {
	Name        string   // for its log file, server-<name>.log: "server", or the target's name
	Command     []string // argv; a command written as one string runs as {"sh", "-c", it}
	Dir         string   // working directory, relative paths resolved against the scenario file
	Env         []string // KEY=VALUE in file order, added to loadgate's environment
	Ready       Ready
	StopSignal  string        // signal name without SIG, e.g. "TERM" (default), "INT", "QUIT"
	StopTimeout time.Duration // then SIGKILL; default 10s
	Pos         Pos
}

// Ready is when a started server counts as ready: the first check to pass.
// With none set, the server is ready once started.
type Ready struct {
	HTTP    string         // URL answering with a status below 500
	TCP     string         // host:port accepting connections
	Log     *regexp.Regexp // a line of the server's output matching
	Timeout time.Duration  // default 30s
}

// Monitor picks an already running process to watch.
type Monitor struct {
	PID     int            // exactly one of PID and Process is set
	Process *regexp.Regexp // matched against /proc/PID/cmdline (arguments joined by spaces); the oldest match wins
	Pos     Pos
}

// Axis is one key of `matrix:` with its values in file order.
type Axis struct {
	Key    string
	Values []MatrixValue
}

// MatrixValue is one value of an axis. Value holds the typed YAML scalar
// (int64, float64, bool or string) so rules can compare `matrix.concurrency > 10`;
// Text is how it was written and how it is substituted into ${key}.
type MatrixValue struct {
	Key   string
	Text  string
	Value any
}

// Case is one target × one matrix combination. It runs every phase in order.
type Case struct {
	// ID names the case uniquely within the scenario and stably across runs:
	// the target name, then key=value per axis, e.g. "keepalive concurrency=100".
	ID     string
	Target Target
	Matrix []MatrixValue // one per axis, in axis order
	Phases []Phase
	// Server is the scenario's server as this case's matrix values resolve
	// it; nil when the scenario has none. A target's own server is
	// Target.Server, resolved the same way. Use Scenario.ServerOf.
	Server *Server
}

// ServerOf is the server case c is measured against: its target's own,
// else the scenario's as c's matrix values resolve it (Scenario.Server when
// c does not say); nil when loadgate starts none. Cases whose servers
// differ in anything but position need the server restarted between them.
func (s *Scenario) ServerOf(c *Case) *Server {
	switch {
	case c.Target.Server != nil:
		return c.Target.Server
	case c.Server != nil:
		return c.Server
	}
	return s.Server
}

// Phase is one stage of a case's load, in one of two load models.
//
// Closed model (Rate zero): Concurrency workers each send a request, wait
// for its response, think, and send the next.
//
// Open model (Rate set): requests arrive on a schedule independent of
// responses (wrk2 -R, vegeta, k6 constant-arrival-rate); at most MaxInFlight
// are outstanding, and latency runs from each request's scheduled time.
type Phase struct {
	Name        string
	Pos         Pos
	Warmup      bool          // run and shown, but never enters results.json metrics or rules
	Duration    time.Duration // 0 = no time limit (Requests must then be > 0)
	Requests    int64         // total across workers; 0 = no count limit
	Concurrency int           // closed model: number of workers (the ramp's end value), ≥ 1; 0 in the open model
	// ConcurrencyFrom > 0 is a concurrency ramp `concurrency: {from, to}`:
	// the number of running workers grows linearly from ConcurrencyFrom to
	// Concurrency across Duration (which is then required).
	ConcurrencyFrom int
	RampUp          time.Duration // closed model: workers start evenly over this span
	ThinkTime       time.Duration // closed model: pause after each response, excluded from latency
	Rate            Rate          // open model when Rate.Open()
	MaxInFlight     int           // open model: cap on requests on the wire; default DefaultMaxInFlight
	// GracefulStop is how long the requests still in flight when the
	// phase stops sending may take to be answered, each one at most its
	// target's timeout; those still waiting then fail as unfinished.
	// Default DefaultGracefulStop (k6's gracefulStop); 0 gives up at once.
	GracefulStop time.Duration
	Trials       int // measured phases: run the phase this many times (≥ 1; default 1)
	// Search, when set, makes this a capacity-search phase (SPEC §14): Rate,
	// Concurrency, Duration and Requests are then unset, and the probes are
	// open-model loads at the rates the search picks.
	Search *Search
	// Adaptive, when set, replaces a fixed Trials count (Trials is then
	// Adaptive.Min): trials are added until every regressed() is decisive.
	Adaptive *AdaptiveTrials
	// Interleave (with Trials > 1) alternates the trials of the targets of a
	// same-job A/B comparison — A B A B … — so that drift of the machine
	// affects both alike, instead of running all of A's trials first.
	Interleave bool
}

// DefaultGracefulStop is a phase's graceful_stop when the scenario does
// not say: k6's gracefulStop, capped by the target's timeout.
const DefaultGracefulStop = 30 * time.Second

// DefaultMaxInFlight caps an open-model phase's outstanding requests when
// the scenario does not say.
const DefaultMaxInFlight = 1000

// Rate is an open-model arrival rate in requests per second, constant when
// From == To, else ramping linearly from From to To across the phase.
type Rate struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// Open reports whether the phase uses the open model.
func (r Rate) Open() bool { return r.From > 0 || r.To > 0 }

// Target is a system to send load to. Exactly one protocol field is set.
type Target struct {
	Name      string
	Pos       Pos
	HTTP      *HTTPTarget // HTTP/1.1, or HTTP/2 when HTTP.HTTP2
	TCP       *TCPTarget
	GRPC      *GRPCTarget
	WebSocket *WebSocketTarget
	// Server, when set, is started before this target's cases and stopped
	// after them, so two implementations can be compared in one scenario.
	// It is resolved with each case's matrix values, and restarted between
	// cases that resolve it differently.
	Server  *Server
	Monitor *Monitor
	// BaselineTarget names the reference target this one is judged against
	// in the same run (same-job A/B): `baseline` in rules is then that
	// target's case with the same matrix values.
	BaselineTarget string
}

// TCPTarget describes load over raw TCP connections: a list of send and
// expect steps per iteration, each iteration counted as one request.
type TCPTarget struct {
	Address    string // host:port to dial
	Connection TCPConnection
	// Timeout bounds one iteration, including dialing and on_connect when
	// the iteration opens a connection; default 30s.
	Timeout time.Duration
	// MaxFrame is the largest frame payload accepted, in bytes; a larger one
	// (or one declared larger by a length field) is a "protocol" error.
	// With framing none it bounds what one expect step reads. Default 1 MiB.
	MaxFrame int64
	Framing  Framing
	// OnConnect runs once per new connection, before its first iteration;
	// its time counts as connect time, with the TCP handshake.
	OnConnect []TCPStep
	// Iteration is one measured request; it has at least one step.
	Iteration []TCPStep
}

// TCPConnection says when a TCP target opens connections.
type TCPConnection uint8

// The connection policies of a TCP target; Persistent is the default.
const (
	// Persistent keeps one connection per worker (a "long connection"),
	// opened on its first iteration and opened again after an error.
	Persistent TCPConnection = iota
	// PerIteration opens a new connection for every iteration and closes
	// it at the iteration's end (a "short connection").
	PerIteration
)

// String returns the policy as written in a scenario.
func (c TCPConnection) String() string {
	if c == PerIteration {
		return "per_iteration"
	}
	return "persistent"
}

// FramingKind is how messages are delimited on a TCP byte stream.
type FramingKind uint8

// The framings of a TCP target; FramingNone is the default.
const (
	// FramingNone has no frames: send writes its payload as is, and an
	// expect step says itself when a reply is complete.
	FramingNone FramingKind = iota
	// FramingLengthPrefixed puts a header of fixed-size fields, one of
	// them the payload length, before every payload.
	FramingLengthPrefixed
	// FramingLine ends every message with a delimiter.
	FramingLine
	// FramingFixed makes every message exactly Size bytes.
	FramingFixed
)

// String returns the framing as written in a scenario.
func (k FramingKind) String() string {
	switch k {
	case FramingLengthPrefixed:
		return "length_prefixed"
	case FramingLine:
		return "line"
	case FramingFixed:
		return "fixed"
	}
	return "none"
}

// Framing delimits the messages of a TCP target. Only the fields of its
// Kind are set.
type Framing struct {
	Kind FramingKind
	// Fields is the header of a length-prefixed frame in wire order;
	// exactly one field has Length set.
	Fields []FrameField
	// Adjust is added to the value of the length field to give the
	// payload length, as Netty's lengthAdjustment is: -6 when the length
	// counts a 6-byte header too. On send the field holds len(payload) - Adjust.
	Adjust int64
	// Delimiter ends every line-framed message; never empty.
	Delimiter []byte
	// Size is the length of every fixed-size message in bytes, ≥ 1.
	Size int
}

// HeaderLen is the size of a length-prefixed header in bytes.
func (f *Framing) HeaderLen() int {
	n := 0
	for _, fl := range f.Fields {
		n += fl.Size
	}
	return n
}

// FrameField is one fixed-size unsigned integer of a length-prefixed header.
type FrameField struct {
	Size         int // bytes: 1, 2, 4 or 8
	LittleEndian bool
	Length       bool   // the field carries the payload length
	Value        uint64 // the constant sent when !Length; not checked on receipt
}

// TCPStepKind is what a step of a TCP target does.
type TCPStepKind uint8

// The kinds of TCP steps.
const (
	// StepSend writes a payload framed by the target's framing.
	StepSend TCPStepKind = iota
	// StepSendRaw writes a payload exactly as given (send_raw, send_hex).
	StepSendRaw
	// StepExpect reads one reply and checks it.
	StepExpect
)

// TCPStep is one step of on_connect or of an iteration.
type TCPStep struct {
	Kind    TCPStepKind
	Pos     Pos
	Payload Template  // StepSend, StepSendRaw
	Expect  TCPExpect // StepExpect
}

// TCPExpect reads one reply: one frame, or with FramingNone as many bytes
// as Bytes (or Equals) says, or up to and including the first Contains.
// A reply failing a check is a "check" error.
type TCPExpect struct {
	Contains []byte // the reply must contain it; nil = no check
	Equals   []byte // the reply must be exactly this; nil = no check
	Bytes    int64  // FramingNone: the reply is this many bytes; 0 = not set
}

// Template is a payload compiled when the scenario is loaded: literal bytes
// and typed placeholders, so the runner renders it without parsing.
type Template struct {
	Parts []TemplatePart
}

// PartKind is what a part of a Template renders.
type PartKind uint8

// The kinds of template parts; every kind but PartLiteral is a placeholder.
const (
	PartLiteral PartKind = iota // Literal, as is
	PartNowMS                   // {{now_ms}}: Unix time in milliseconds
	PartSeq                     // {{seq}}: the worker's iteration number, from 1
	PartWorker                  // {{worker}}: the worker's index, from 0
	PartUUID                    // {{uuid}}: a random version 4 UUID
	PartRandInt                 // {{rand_int A B}}: a uniform integer in [Min, Max]
	PartVar                     // {{token}}, {{users.name}}: a flow variable (an extracted value or a data column); Slot indexes Flow.Vars
)

// TemplatePart is one literal or placeholder of a Template.
type TemplatePart struct {
	Kind     PartKind
	Literal  []byte // PartLiteral
	Min, Max int64  // PartRandInt, inclusive
	Slot     int    // PartVar: index into Flow.Vars
}

// HTTPTarget describes HTTP/1.1 or HTTP/2 load. Requests always holds at
// least one entry: a target written with a single `url:` gets one request
// of weight 1.
type HTTPTarget struct {
	Requests  []HTTPRequest
	Keepalive bool          // false = a new TCP connection per request
	Timeout   time.Duration // whole request, connect to last byte; default 30s
	MaxBody   int64         // bytes read of a response body before it counts as an error; default 10 MiB
	Expect    Expect
	TLS       TLS
	// HTTP2 speaks HTTP/2: over TLS negotiated with ALPN h2 for https://
	// URLs, cleartext with prior knowledge (h2c) for http:// URLs. It
	// implies Keepalive, which the scenario cannot turn off.
	HTTP2 bool
	// Connections is, with HTTP2, how many TCP connections carry the
	// workers' requests as concurrent streams (h2load -c); default 1. It
	// is 0 over HTTP/1.1, where every worker has its own connection.
	Connections int
	// Flow, when set, replaces Requests as what an iteration sends (SPEC
	// §12); Requests then holds one entry per step, named after it, so
	// that code which only lists a target's requests sees the steps.
	Flow *Flow
	// Proxy is the proxy URL for every request; "" = from HTTP_PROXY,
	// HTTPS_PROXY and NO_PROXY, as net/http reads them.
	Proxy string
}

// HTTPRequest is one entry of a weighted request mix.
type HTTPRequest struct {
	Name    string // "" for the single request of a plain target
	Method  string // upper-case; default GET
	URL     string // absolute http:// or https:// URL
	Headers []Header
	Body    []byte
	Weight  int // ≥ 1; selection probability is Weight / sum of weights
}

// Header is one request header, in file order (names may repeat).
type Header struct {
	Name  string
	Value string
}

// Expect holds per-response checks; a response failing one counts as an
// error of the kind named in each field's comment.
type Expect struct {
	Status       []int          // accepted status codes; empty = 200–399 (kind "status")
	BodyContains string         // substring the body must contain; "" = no check (kind "check")
	BodyRegex    *regexp.Regexp // nil = no check (kind "check")
	Length       int64          // exact body length in bytes; -1 = no check (kind "length")
}

// TLS configures https:// targets.
type TLS struct {
	InsecureSkipVerify bool
	CAFile             string
	// CertFile and KeyFile are a client certificate and its key (PEM),
	// both or neither.
	CertFile string
	KeyFile  string
	// NoResume turns TLS session resumption off (`resume: false`): every
	// new connection then pays a full handshake, which is what a test of
	// the server's handshake capacity wants. By default the connections of
	// a case resume the sessions its earlier connections got, as browsers
	// and wrk do.
	NoResume bool
	// PostQuantum offers the hybrid X25519MLKEM768 key exchange first, as
	// current browsers do (`post_quantum: true`). By default a handshake
	// offers X25519 and the NIST curves only, as wrk, curl and OpenSSL 3.0
	// do: the hybrid's key share costs the client an ML-KEM key generation
	// per handshake, a seventh of a resumed one's CPU time.
	PostQuantum bool
	// Sessions is the session cache that every connection made from this
	// block shares, so that the workers of a target resume each other's
	// sessions: made with the block when resumption is on (NewSessionCache),
	// nil otherwise.
	Sessions tls.ClientSessionCache `json:"-" yaml:"-"`
}

// sessionCacheSize bounds the sessions a cache keeps. They are keyed by
// server name, so a target's workers share an entry or a few.
const sessionCacheSize = 64

// NewSessionCache is the session cache of one tls: block.
func NewSessionCache() tls.ClientSessionCache { return tls.NewLRUClientSessionCache(sessionCacheSize) }

// Threshold is one rule judged per case after the run.
type Threshold struct {
	Name     string // defaults to Rule
	Rule     string // expr source as written
	Severity Severity
	Phase    string // "" = all measured phases of the case, merged
	Target   string // "" = every target
	// Abort evaluates the rule every second on the running phase and stops
	// the run as soon as it fails (k6's abortOnFail), over the whole phase
	// so far or, with Window, over its last Window of load.
	Abort  bool
	Window time.Duration
	Pos    Pos // of the threshold entry (for annotations)
	// RulePos is the position of the rule text's first character, so a
	// column inside the rule maps onto the file by simple addition.
	RulePos Pos
}
