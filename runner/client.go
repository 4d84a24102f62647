package runner

import (
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// NewClient makes the client for the target's protocol. HTTP targets get
// the lean HTTP/1.1 client unless they need what only net/http does (see
// http1Unsupported: HTTP/2, a mix spanning several origins, CONNECT,
// internationalised host names, a proxy). A flow target gets the flow
// client, which runs its steps through the lean client's wire code.
func NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
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
