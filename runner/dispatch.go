package runner

import (
	"context"
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/grpc"
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
	case t.GRPC != nil:
		return nil, fmt.Errorf("target %q: a gRPC client shares its case's connections; make it with the case's protocols.Shared", t.Name)
	default:
		return nil, fmt.Errorf("target %q: no protocol block", t.Name)
	}
}

// newLoop is the event loop of target t's protocol, or nil and why not
// (the protocol has none, or the target needs its workers).
func newLoop(t *scenarios.Target, k, n int) (protocols.Loop, string) {
	switch {
	case t.HTTP != nil && t.HTTP.HTTP2:
		// Loop k of n drives its share of the target's connections.
		conns := sharedConns(t)
		share := conns / n
		if k < conns%n {
			share++
		}
		return http2.NewLoop(t, share)
	case t.HTTP != nil:
		return http1.NewLoop(t)
	case t.TCP != nil:
		return tcp.NewLoop(t)
	}
	return nil, "the protocol has no event loop"
}

// sharedConns is how many connections the workers of target t share, as
// streams (HTTP/2's `connections:`); a protocol whose workers each have
// their own has no such bound, for which it returns the largest int.
func sharedConns(t *scenarios.Target) int {
	if t.HTTP != nil && t.HTTP.HTTP2 {
		return max(1, t.HTTP.Connections)
	}
	return int(^uint(0) >> 1)
}

// newShared makes what the workers of a case of target t share, once per
// case, across its phases and trials: the connections an HTTP/2 or a gRPC
// target's workers send their streams over. nil for a protocol whose
// workers share nothing. ctx bounds the setup it may do on the network
// (gRPC reflection), not the state's life.
func newShared(ctx context.Context, t *scenarios.Target) (protocols.Shared, error) {
	switch {
	case t.HTTP != nil && t.HTTP.HTTP2:
		p, err := http2.NewPool(t)
		if err != nil {
			return nil, err
		}
		return p, nil
	case t.GRPC != nil:
		s, err := grpc.NewShared(ctx, t)
		if err != nil {
			return nil, err
		}
		return s, nil
	default:
		return nil, nil
	}
}

// caseClients is how the workers of a case of target t get their clients,
// and what to close after the case's last phase: custom when set (the
// run's seam), else the clients of the case's shared state, else nil:
// NewClient's, or the event loop's where it can run the phase.
func caseClients(ctx context.Context, t *scenarios.Target, custom protocols.NewClientFunc) (protocols.NewClientFunc, func() error, error) {
	if custom != nil {
		return custom, func() error { return nil }, nil
	}
	shared, err := newShared(ctx, t)
	if err != nil || shared == nil {
		return nil, func() error { return nil }, err
	}
	return shared.NewClient, shared.Close, nil
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
