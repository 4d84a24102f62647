package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// Outcome is what one request did. The client fills it; the engine records
// it. A failure is a Kind, never a Go error: the run goes on.
type Outcome struct {
	Kind          ErrorKind
	Status        int           // HTTP status; 0 when no response arrived
	Connect       time.Duration // handshake time when this request opened a connection, else 0
	BytesSent     int64
	BytesReceived int64
	// Err says why the request failed, for the first-message-per-kind sample
	// in reports ("dial tcp 127.0.0.1:18099: connect: connection refused").
	// Set it only on failure, and only to an error that already exists (one
	// the network returned, or one the client made once when it was built):
	// a failing request must allocate no more than a succeeding one.
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

// NewClient makes the client for the target's protocol. HTTP targets get
// the lean HTTP/1.1 client unless they need what only net/http does (see
// http1Unsupported: HTTP/2, a mix spanning several origins, CONNECT,
// internationalised host names, a proxy). A flow target gets the flow
// client, which runs its steps through the lean client's wire code.
func NewClient(t *scenarios.Target, worker int) (Client, error) {
	switch {
	case t.HTTP != nil && t.HTTP.Flow != nil:
		return newFlowClient(t, worker)
	case t.HTTP != nil && http1Unsupported(t.HTTP) == "":
		return newHTTP1Client(t, worker)
	case t.HTTP != nil:
		return NewHTTPClient(t, worker)
	case t.TCP != nil:
		return newTCPClient(t, worker)
	default:
		return nil, fmt.Errorf("target %q: no protocol block", t.Name)
	}
}

// mixEntry is one weighted kind of request a target sends.
type mixEntry struct {
	name   string
	weight int
}

// requestMix lists what a target sends, so the engine can pick a request
// and report per name without knowing the protocol. A target with a single
// kind of request has one entry.
func requestMix(t *scenarios.Target) []mixEntry {
	switch {
	case t.HTTP != nil:
		mix := make([]mixEntry, len(t.HTTP.Requests))
		for i, r := range t.HTTP.Requests {
			mix[i] = mixEntry{name: r.Name, weight: r.Weight}
		}
		return mix
	case t.TCP != nil:
		// An iteration is the one kind of request a TCP target sends.
		return []mixEntry{{weight: 1}}
	default:
		return []mixEntry{{weight: 1}}
	}
}
