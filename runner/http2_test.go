package runner

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// The workers of a case of an HTTP/2 target share its connections (the
// pool dispatch makes once per case), across the case's phases: a warm-up
// phase warms the connections the measured phase then uses. On event
// loops, each phase's loops open the target's connections, shared among
// them, and close them when it ends, as HTTP/1.1's do.
func TestHTTP2PhaseSharesConnections(t *testing.T) {
	for _, tc := range []struct {
		conns, workers int
		onWorkers      bool
		want           int
	}{{1, 4, true, 1}, {2, 6, true, 2}, {1, 4, false, 2}, {2, 6, false, 4}, {3, 6, false, 6}} {
		var accepts countingConns
		srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Config.ConnState = accepts.track
		srv.Start()
		sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true, HTTP2: true, Connections: tc.conns},
			scenarios.Phase{Name: "a", Concurrency: tc.workers, Requests: 200, Duration: 30 * time.Second},
			scenarios.Phase{Name: "b", Concurrency: tc.workers, Requests: 200, Duration: 30 * time.Second})
		res, err := Run(t.Context(), sc, Config{Workers: tc.onWorkers})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Cases[0].Phases {
			if p.Succeeded != 200 {
				t.Errorf("%d connections: phase %s: %d succeeded, want 200 (errors %v)", tc.conns, p.Name, p.Succeeded, p.Errors)
			}
		}
		if got := int(accepts.n.Load()); got != tc.want {
			t.Errorf("%d workers over %d connections in two phases (workers %v): server accepted %d connections, want %d",
				tc.workers, tc.conns, tc.onWorkers, got, tc.want)
		}
	}
}

type countingConns struct{ n atomic.Int64 }

func (c *countingConns) track(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.n.Add(1)
	}
}
