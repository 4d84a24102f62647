package scenarios

import (
	"crypto/tls"
	"fmt"
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
	File string // path as given on the command line
	Hash string // hex SHA-256 of the file's bytes: identifies the scenario across runs
	// Source is the file as read, which a segment part stores (redacted)
	// so that merge judges exactly the file that was run, even if it
	// changed on disk in the meantime. It is Parse's data, not a copy.
	Source      []byte
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
	// Monitors are the processes of `monitors:` watched beside the server
	// during every case, in file order: the application's database, say.
	// The first stands for server.* when no server is started or
	// monitored otherwise.
	Monitors []NamedMonitor
	// Secrets are the scenario's secret values, longest first: those of
	// credential headers (Authorization, Cookie, X-Api-Key…), URL
	// passwords and secret-looking query parameters, of the variables
	// substituted into them, and of the variables marked secret. Redact
	// replaces them; values shorter than 4 bytes are left out.
	Secrets Redactor
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

// WatchedName is the name rules read case c's server by, as
// servers.NAME: the server loadgate starts for it ("server", or its
// target's name), its target's monitor (the target's name), the
// scenario's monitor ("server"), else the first entry of `monitors:`; ""
// when nothing is watched.
func (s *Scenario) WatchedName(c *Case) string {
	switch {
	case s.ServerOf(c) != nil:
		return s.ServerOf(c).Name
	case c.Target.Monitor != nil:
		return c.Target.Name
	case s.Monitor != nil:
		return "server"
	case len(s.Monitors) > 0:
		return s.Monitors[0].Name
	}
	return ""
}

// defaultTimeout bounds one request, call or iteration of a target of
// any protocol when the scenario does not say.
const defaultTimeout = 30 * time.Second

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

// Header is one request header, in file order (names may repeat).
type Header struct {
	Name  string
	Value string
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
