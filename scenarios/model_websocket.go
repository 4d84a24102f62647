package scenarios

import (
	"regexp"
	"time"
)

// defaultMaxMessage is the largest WebSocket message a target accepts when
// the scenario does not say, in bytes.
const defaultMaxMessage = 1 << 20

// WebSocketTarget describes load over WebSocket connections: the step
// model of TCP targets, where a step sends or reads one message instead of
// one frame. Every iteration is one request.
type WebSocketTarget struct {
	URL     string   // ws:// or wss:// with a host
	Headers []Header // sent with the opening handshake, in file order
	TLS     TLS      // wss:// only
	// Connection is when connections are opened: one per worker, kept
	// across iterations (Persistent, the default), or one per iteration.
	Connection TCPConnection
	// Timeout bounds one iteration, including the opening handshake and
	// on_connect when the iteration opens a connection; default 30s.
	Timeout time.Duration
	// MaxMessage is the largest message accepted, in bytes; a larger one
	// is a "protocol" error. Default 1 MiB.
	MaxMessage int64
	// OnConnect runs once per new connection, before its first iteration;
	// its time counts as connect time, with the handshake.
	OnConnect []WSStep
	// Iteration is one measured request; it has at least one step.
	Iteration []WSStep
}

// WSStepKind is what a step of a WebSocket target does.
type WSStepKind uint8

// The kinds of WebSocket steps.
const (
	// WSSendText sends Payload as one text message (`send:`); the
	// payload is checked to be UTF-8 when it has no placeholders.
	WSSendText WSStepKind = iota
	// WSSendBinary sends Payload as one binary message (`send_binary:`,
	// `send_hex:`).
	WSSendBinary
	// WSExpect reads one message, text or binary, and checks it. Control
	// frames (ping, pong) are handled by the client and never read here.
	WSExpect
)

// WSStep is one step of on_connect or of an iteration.
type WSStep struct {
	Kind    WSStepKind
	Pos     Pos
	Payload Template      // WSSendText, WSSendBinary
	Expect  WSExpectCheck // WSExpect
}

// WSExpectCheck checks one received message; every check set must hold,
// and none set accepts any message. A message failing one is a "check"
// error.
type WSExpectCheck struct {
	Contains []byte         // the message must contain it; nil = no check
	Equals   []byte         // the message must be exactly this; nil = no check
	Regex    *regexp.Regexp // the message must match; nil = no check
}
