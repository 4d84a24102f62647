//go:build linux

package http1

import (
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// The event loop sends a large body whole, from the target's bytes, on
// every connection: its writes stop and resume inside the wire and the
// body as the socket fills.
func TestLoopSendsLargeBody(t *testing.T) {
	body := bigBody(3<<20 + 7)
	srv, bad := newBodyServer(t, body)
	tg := http1Target(srv.URL+"/up", func(h *scenarios.HTTPTarget) {
		h.Requests[0].Method, h.Requests[0].Body = "PUT", body
	})
	var lt loopTally
	const slots, limit = 2, 6
	runLoop(t, tg, lt.job(slots, limit, 0))
	if got := lt.kinds[protocols.KindNone]; got != limit || bad.Load() != 0 {
		t.Fatalf("%d succeeded of %d, %d bodies not the one sent (kinds %v, errors %q)", got, limit, bad.Load(), lt.kinds, first(lt.errs))
	}
	if got := srv.accepts.Load(); got != slots {
		t.Errorf("server accepted %d connections, want %d kept alive", got, slots)
	}
}
