package runner

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/loadgate/loadgate/scenarios"
)

// A loopback gRPC server with the health service and reflection, both
// compiled in: asking the health of a service it does not know ends the
// call with NOT_FOUND. The protocol's own tests in protocols/grpc serve
// the echo service.

type grpcCounter struct {
	net.Listener
	n *atomic.Int64
}

func (l grpcCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func newHealthServer(t *testing.T) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	reflection.Register(srv)
	accepted = &atomic.Int64{}
	go func() { _ = srv.Serve(grpcCounter{ln, accepted}) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String(), accepted
}

func grpcScenario(t *testing.T, addr, grpcBody string) *scenarios.Scenario {
	t.Helper()
	src := "version: 1\nname: g\ntargets:\n- name: health\n  grpc:\n    address: " + addr + "\n    reflection: true\n" + grpcBody +
		"phases: [{name: m, concurrency: 6, requests: 60}]\n"
	sc, err := scenarios.Parse("g.yaml", []byte(src), scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestGRPCCase(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		succeeded int64
		codes     map[string]int64
	}{
		{"served", "    method: grpc.health.v1.Health/Check\n    connections: 3\n", 60, nil},
		{"unknown service: NOT_FOUND", "    method: grpc.health.v1.Health/Check\n    connections: 3\n    message: { service: nope }\n",
			0, map[string]int64{"NOT_FOUND": 60}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, accepted := newHealthServer(t)
			res, err := Run(context.Background(), grpcScenario(t, addr, tt.body), Config{})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Cases[0].Phases[0]
			if p.Requests != 60 || p.Succeeded != tt.succeeded || len(p.Errors.GRPC) != len(tt.codes) {
				t.Fatalf("requests %d, succeeded %d, errors %+v; want 60, %d, grpc %v", p.Requests, p.Succeeded, p.Errors, tt.succeeded, tt.codes)
			}
			for code, n := range tt.codes {
				if p.Errors.GRPC[code] != n || p.Errors.Total() != n {
					t.Errorf("errors = %+v, want grpc %v only", p.Errors, tt.codes)
				}
			}
			if p.Messages != tt.succeeded {
				t.Errorf("messages = %d, want one per succeeded call, %d", p.Messages, tt.succeeded)
			}
			// Reflection used one of the case's three connections: no more.
			// A connection is made by its first call, and on a busy machine
			// the first workers may take all 60 requests before those of the
			// third connection run, so fewer is no failure.
			n := accepted.Load()
			if n < 1 || n > 3 {
				t.Errorf("server accepted %d connections, want 1 to 3", n)
			}
			if p.Connect.Count() != n {
				t.Errorf("%d connect times recorded for %d connections", p.Connect.Count(), n)
			}
		})
	}
}

func TestGRPCUnknownMethodFailsTheRun(t *testing.T) {
	addr, _ := newHealthServer(t)
	_, err := Run(context.Background(), grpcScenario(t, addr, "    method: grpc.health.v1.Health/Probe\n"), Config{})
	if err == nil || !strings.Contains(err.Error(), `has no method "Probe" (it has Check, List, Watch)`) {
		t.Errorf("err = %v, want the methods the service has", err)
	}
}
