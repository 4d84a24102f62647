package runner

import (
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/http1"
	"github.com/loadgate/loadgate/protocols/http2"
	"github.com/loadgate/loadgate/protocols/tcp"
	"github.com/loadgate/loadgate/protocols/websocket"
	"github.com/loadgate/loadgate/scenarios"
)

// The dispatch from a target to its protocol client: the one place in the
// engine that names the protocols. A new protocol is one package under
// protocols/ and one case here.

// NewClient makes the client for the target's protocol: each protocol's
// package picks its own variant (for HTTP, the lean HTTP/1.1 client, its
// flow client, or the net/http fallback).
func NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	switch {
	case t.HTTP != nil && t.HTTP.HTTP2:
		return http2.NewClient(t, worker)
	case t.HTTP != nil:
		return http1.NewClient(t, worker)
	case t.TCP != nil:
		return tcp.NewClient(t, worker)
	case t.WebSocket != nil:
		return websocket.NewClient(t, worker)
	default:
		return nil, fmt.Errorf("target %q: no protocol block", t.Name)
	}
}

// phaseClients is the client factory of one phase of target t, and what
// closes, at the phase's end, the state its clients share: the workers of
// an HTTP/2 target send their streams over one pool of connections.
func phaseClients(t *scenarios.Target) (protocols.NewClientFunc, func(), error) {
	if t.HTTP != nil && t.HTTP.HTTP2 {
		p, err := http2.NewPool(t)
		if err != nil {
			return nil, nil, err
		}
		return p.NewClient, func() { _ = p.Close() }, nil
	}
	return NewClient, func() {}, nil
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

// flowOf is the flow target t runs, nil when its workers send single
// requests rather than iterations.
func flowOf(t *scenarios.Target) *scenarios.Flow {
	if t.HTTP != nil {
		return t.HTTP.Flow
	}
	return nil
}
