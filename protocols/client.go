package protocols

import (
	"context"
	"errors"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// ErrorKind classifies a failed request (SPEC §3). A failed request is data,
// not a Go error: it is counted by kind and the run goes on.
type ErrorKind uint8

// The error kinds, in report order. KindNone marks a successful request.
const (
	KindNone     ErrorKind = iota
	KindConnect            // dial or TLS handshake failed
	KindTimeout            // the request's deadline passed
	KindReset              // the peer reset or closed the connection mid-exchange
	KindStatus             // status code not accepted by expect.status
	KindLength             // body length differs from expect.length, or exceeds max_body
	KindCheck              // body_contains / body_regex failed
	KindExtract            // a flow step's extract: found nothing to take
	KindProtocol           // the response could not be parsed
	KindGRPC               // a gRPC call ended with a status code expect.code does not accept
	// KindUnfinished is a request still waiting for its response when its
	// phase ended and the phase's graceful stop ran out, or when the run
	// was interrupted or aborted: the server received it (or may have) and
	// never answered in time, so it is a failure, never a request that did
	// not happen.
	KindUnfinished
	KindOther // anything else
	// NumKinds is the number of kinds, KindNone included: the length of
	// an array indexed by kind.
	NumKinds
)

// ErrUnfinished and ErrStopped are the failures of KindUnfinished: a
// request still waiting when its phase's graceful stop ran out, or when
// the run was interrupted or aborted. Made once, so that a request
// costs no allocation.
var (
	ErrUnfinished = errors.New("no response by the end of the phase and its graceful stop")
	ErrStopped    = errors.New("no response before the phase was stopped")
)

var kindNames = [NumKinds]string{"", "connect", "timeout", "reset", "status", "length", "check", "extract", "protocol", "grpc", "unfinished", "other"}

// String is the kind's name as used in reports and rules (`errors.connect`).
func (k ErrorKind) String() string {
	if k >= NumKinds {
		return "other"
	}
	return kindNames[k]
}

// Outcome is what one request did. The client fills it; the engine records
// it. A failure is a Kind, never a Go error: the run goes on.
type Outcome struct {
	Kind ErrorKind
	// Status is the HTTP status, 0 when no response arrived; for a gRPC
	// call, its status code (with KindGRPC, the code errors.grpc counts).
	Status        int
	Connect       time.Duration // handshake time when this request opened a connection, else 0
	BytesSent     int64
	BytesReceived int64
	// Messages counts the response messages a gRPC call received: one for
	// a unary call that succeeded, every message of a server stream; 0 for
	// other protocols.
	Messages int64
	// Err says why the request failed, for the first-message-per-kind sample
	// in reports ("dial tcp 127.0.0.1:18099: connect: connection refused").
	// Set it only on failure, and only to an error that already exists (one
	// the network returned, or one the client made once when it was built):
	// a failing request must allocate no more than a succeeding one. A
	// client's own *StepError, refilled by each failure, is valid until the
	// client's next request, before which the engine describes it.
	Err error
}

// Client issues one worker's requests, one at a time, so it may own a
// connection and reusable buffers. Do blocks until the response is complete,
// failed, or ctx is done; req indexes the target's request mix.
type Client interface {
	Do(ctx context.Context, req int, out *Outcome)
	Close() error
}

// NewClientFunc makes the client of one worker of a case.
type NewClientFunc func(target *scenarios.Target, worker int) (Client, error)

// Shared is what the workers of one case share: the connections that carry
// every worker's requests as concurrent streams (`connections: C` of gRPC
// and HTTP/2), and what was learnt from the server before the load (gRPC
// reflection). The engine makes it once per case, before the case's first
// phase, makes every client of the case with its NewClient (worker w may
// use connection w % C), and closes it after the case's last phase, once
// every client is closed.
type Shared interface {
	NewClient(target *scenarios.Target, worker int) (Client, error)
	Close() error
}
