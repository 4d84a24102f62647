package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/demoserver"
)

// protoResults is the part of results.json the protocol examples check.
type protoResults struct {
	Scenarios []struct {
		Cases []struct {
			ID     string `json:"id"`
			Target string `json:"target"`
			Stats  struct {
				Requests  int64 `json:"requests"`
				Succeeded int64 `json:"succeeded"`
				Failed    int64 `json:"failed"`
				Messages  int64 `json:"messages"`
				Errors    struct {
					Reset    int64            `json:"reset"`
					Protocol int64            `json:"protocol"`
					GRPC     map[string]int64 `json:"grpc"`
				} `json:"errors"`
			} `json:"stats"`
		} `json:"cases"`
	} `json:"scenarios"`
}

func readProtoResults(t *testing.T, dir string) protoResults {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r protoResults
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Scenarios) != 1 {
		t.Fatalf("%d scenarios in results.json, want 1", len(r.Scenarios))
	}
	return r
}

// The shortened runs of the protocol examples.
const (
	protoWarmup   = 200
	protoMeasured = 1000
)

func shortened(vars ...string) []string {
	args := []string{"run", "--no-progress",
		"--var", "warmup_requests=" + strconv.Itoa(protoWarmup), "--var", "requests=" + strconv.Itoa(protoMeasured)}
	for _, v := range vars {
		args = append(args, "--var", v)
	}
	return args
}

func TestHTTP2(t *testing.T) {
	srv := start(t, demoserver.Config{HTTP2: true, HTTPSAddr: "127.0.0.1:0"})
	ca := filepath.Join(t.TempDir(), "loadgate.pem")
	if err := os.WriteFile(ca, srv.CertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	const connections = 3
	args := append(shortened("host="+srv.HTTPAddr(), "tls_host="+srv.HTTPSAddr(), "ca="+ca,
		"connections="+strconv.Itoa(connections)), "-o", out, "http2/scenario.yaml")
	code, stdout, stderr := run(t, args...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	cases := readProtoResults(t, out).Scenarios[0].Cases
	want := []string{"http1 concurrency=10", "http1 concurrency=100", "h2c concurrency=10",
		"h2c concurrency=100", "h2 concurrency=10", "h2 concurrency=100"}
	if len(cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(cases), len(want))
	}
	for i, c := range cases {
		if c.ID != want[i] || c.Stats.Requests != protoMeasured || c.Stats.Failed != 0 {
			t.Errorf("case %d = %s: %d requests, %d failed; want %s: %d, 0", i, c.ID, c.Stats.Requests, c.Stats.Failed, want[i], protoMeasured)
		}
	}
	// The server tells the versions apart: one target's worth of HTTP/1.1,
	// two of HTTP/2, each over two levels and two phases.
	perTarget := int64(2 * (protoWarmup + protoMeasured))
	st := srv.Stats()
	if st.HTTP1Requests != perTarget || st.HTTP2Requests != 2*perTarget || st.HTTP2Refused != 0 {
		t.Errorf("server: http1_requests %d, http2_requests %d, http2_refused %d; want %d, %d, 0",
			st.HTTP1Requests, st.HTTP2Requests, st.HTTP2Refused, perTarget, 2*perTarget)
	}
	// h2 opened `connections` TLS connections per case, carrying up to 100
	// workers' requests as streams; HTTP/1.1 would have needed one each.
	if st.TLSAccepted != 2*connections {
		t.Errorf("server accepted %d TLS connections, want %d: %d per case", st.TLSAccepted, 2*connections, connections)
	}
}

func TestGRPC(t *testing.T) {
	const streamLen = 7
	tests := []struct {
		name      string
		errorRate float64
		wantCode  int
	}{
		{name: "clean", wantCode: cli.ExitOK},
		// The server answers a fraction of the echo calls UNAVAILABLE: the
		// threshold errors.grpc["UNAVAILABLE"] == 0 fails the run.
		{name: "injected UNAVAILABLE", errorRate: 0.05, wantCode: cli.ExitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, demoserver.Config{GRPCAddr: "127.0.0.1:0", ErrorRate: tt.errorRate, Seed: 11})
			out := t.TempDir()
			args := append(shortened("host="+srv.GRPCAddr(), "stream_len="+strconv.Itoa(streamLen)),
				"-o", out, "grpc/scenario.yaml")
			code, stdout, stderr := run(t, args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.wantCode, stdout, stderr)
			}
			cases := readProtoResults(t, out).Scenarios[0].Cases
			if len(cases) != 3 {
				t.Fatalf("%d cases, want say, stream and health", len(cases))
			}
			calls := srv.Stats().GRPC
			total := int64(protoWarmup + protoMeasured)
			for _, c := range cases {
				s := c.Stats
				unavailable := s.Errors.GRPC["UNAVAILABLE"]
				perCall := map[string]int64{"say": 1, "stream": streamLen, "health": 1}[c.Target]
				if s.Requests != protoMeasured || s.Succeeded+unavailable != protoMeasured || s.Messages != perCall*s.Succeeded {
					t.Errorf("%s: %d requests, %d succeeded, %d UNAVAILABLE, %d messages; want %d calls, all OK or UNAVAILABLE, %d messages each",
						c.ID, s.Requests, s.Succeeded, unavailable, s.Messages, protoMeasured, perCall)
				}
				method := map[string]string{"say": "/loadgate.echo.v1.Echo/Say", "stream": "/loadgate.echo.v1.Echo/Stream",
					"health": "/grpc.health.v1.Health/Check"}[c.Target]
				server := calls[method]
				if server["OK"]+server["UNAVAILABLE"] != total {
					t.Errorf("%s: server ended %v calls of %s, want %d in all", c.ID, server, method, total)
				}
				injected := tt.errorRate > 0 && c.Target != "health" // faults spare health
				if injected != (unavailable > 0) || unavailable > server["UNAVAILABLE"] {
					t.Errorf("%s: loadgate counted %d UNAVAILABLE, server sent %d", c.ID, unavailable, server["UNAVAILABLE"])
				}
				if tt.errorRate == 0 && server["OK"] != total {
					t.Errorf("%s: server answered %d OK, want %d", c.ID, server["OK"], total)
				}
			}
			if tt.errorRate == 0 {
				if got, want := srv.Stats().GRPCMessages, total*(1+streamLen); got != want {
					t.Errorf("server sent %d echo messages, want %d", got, want)
				}
				if calls["/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"]["OK"] == 0 {
					t.Errorf("health resolved its method without asking the reflection service: %v", calls)
				}
			}
		})
	}
}

func TestWebSocket(t *testing.T) {
	srv := start(t, demoserver.Config{})
	out := t.TempDir()
	args := append(shortened("url=ws://"+srv.HTTPAddr()+"/ws"), "-o", out, "websocket/scenario.yaml")
	code, stdout, stderr := run(t, args...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	cases := readProtoResults(t, out).Scenarios[0].Cases
	want := []string{"persistent concurrency=10", "persistent concurrency=50",
		"per_iteration concurrency=10", "per_iteration concurrency=50"}
	if len(cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(cases), len(want))
	}
	for i, c := range cases {
		if c.ID != want[i] || c.Stats.Requests != protoMeasured || c.Stats.Failed != 0 {
			t.Errorf("case %d = %s: %d requests, %d failed; want %s: %d, 0", i, c.ID, c.Stats.Requests, c.Stats.Failed, want[i], protoMeasured)
		}
	}
	// per_iteration opens one connection per iteration; persistent one per
	// worker and phase, for the workers that got an iteration (a worker may
	// go without one when the phase's requests run out first). Each
	// connection sends its hello, each iteration a text and a binary message.
	iterations := int64(2 * (protoWarmup + protoMeasured)) // per target: two levels, two phases
	persistentMax := int64(2 * (10 + 50))
	st := srv.Stats()
	if persistent := st.WSConnections - iterations; persistent < 4 || persistent > persistentMax {
		t.Errorf("server: ws_connections %d, want %d for per_iteration and from 4 to %d for persistent",
			st.WSConnections, iterations, persistentMax)
	}
	if want := st.WSConnections + 2*2*iterations; st.WSMessages != want || st.Errors != 0 {
		t.Errorf("server: ws_messages %d, errors %d; want %d (a hello per connection, two per iteration), 0",
			st.WSMessages, st.Errors, want)
	}
}
