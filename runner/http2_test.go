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
// phase warms the connections the measured phase then uses.
func TestHTTP2PhaseSharesConnections(t *testing.T) {
	for _, tc := range []struct{ conns, workers int }{{1, 4}, {2, 6}} {
		var accepts countingConns
		srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Config.ConnState = accepts.track
		srv.Start()
		sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true, HTTP2: true, Connections: tc.conns},
			scenarios.Phase{Name: "a", Concurrency: tc.workers, Requests: 200, Duration: 30 * time.Second},
			scenarios.Phase{Name: "b", Concurrency: tc.workers, Requests: 200, Duration: 30 * time.Second})
		res, err := Run(t.Context(), sc, Config{})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Cases[0].Phases {
			if p.Succeeded != 200 {
				t.Errorf("%d connections: phase %s: %d succeeded, want 200 (errors %v)", tc.conns, p.Name, p.Succeeded, p.Errors)
			}
		}
		if got := int(accepts.n.Load()); got != tc.conns {
			t.Errorf("%d workers over %d connections in two phases: server accepted %d connections, want %d",
				tc.workers, tc.conns, got, tc.conns)
		}
	}
}

type countingConns struct{ n atomic.Int64 }

func (c *countingConns) track(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.n.Add(1)
	}
}
