package scenarios

import "time"

// defaultMaxFrame is the largest frame payload a TCP target accepts when
// the scenario does not say, in bytes.
const defaultMaxFrame = 1 << 20

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
