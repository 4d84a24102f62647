package runner_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

// The test binary doubles as the server under test: started with
// LOADGATE_TEST_SERVE=ADDR it serves the built-in server there until
// SIGTERM, or until LOADGATE_TEST_EXIT_AFTER passes (a crash).
func TestMain(m *testing.M) {
	if addr := os.Getenv("LOADGATE_TEST_SERVE"); addr != "" {
		os.Exit(serveForTest(addr))
	}
	os.Exit(m.Run())
}

func serveForTest(addr string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	srv, err := demoserver.Start(ctx, demoserver.Config{HTTPAddr: addr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("serving on", srv.HTTPAddr())
	if d, err := time.ParseDuration(os.Getenv("LOADGATE_TEST_EXIT_AFTER")); err == nil {
		select {
		case <-time.After(d):
			fmt.Println("fatal: simulated crash")
			return 2
		case <-ctx.Done():
		}
	}
	<-ctx.Done()
	_ = srv.Close()
	return 0
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func serverBlock(name, addr string, env ...string) *scenarios.Server {
	return &scenarios.Server{
		Name: name, Command: []string{os.Args[0]},
		Env:         append([]string{"LOADGATE_TEST_SERVE=" + addr}, env...),
		Ready:       scenarios.Ready{HTTP: "http://" + addr + "/health", Timeout: 20 * time.Second},
		StopSignal:  "TERM",
		StopTimeout: 5 * time.Second,
	}
}

func httpCase(id, url string, phases ...scenarios.Phase) scenarios.Case {
	for i := range phases {
		if phases[i].Trials == 0 {
			phases[i].Trials = 1
		}
	}
	return scenarios.Case{ID: id, Target: scenarios.Target{Name: id, HTTP: &scenarios.HTTPTarget{
		Requests:  []scenarios.HTTPRequest{{Method: "GET", URL: url, Weight: 1}},
		Keepalive: true, Timeout: 5 * time.Second, MaxBody: 1 << 20, Expect: scenarios.Expect{Length: -1},
	}}, Phases: phases}
}

func TestRunStartsMonitorsAndStopsTheServer(t *testing.T) {
	addr := freeAddr(t)
	logs := t.TempDir()
	sc := &scenarios.Scenario{Name: "sut", Server: serverBlock("server", addr),
		Cases: []scenarios.Case{httpCase("hello", "http://"+addr+"/",
			scenarios.Phase{Name: "warm", Warmup: true, Requests: 100, Concurrency: 2},
			scenarios.Phase{Name: "m", Duration: 1500 * time.Millisecond, Concurrency: 4})}}
	res, err := runner.Run(context.Background(), sc, runner.Config{LogDir: logs, MonitorEvery: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cases[0]
	if c.Err != "" || c.Phases[1].Succeeded == 0 {
		t.Fatalf("case: err %q, %d succeeded", c.Err, c.Phases[1].Succeeded)
	}
	u := c.Server
	if u == nil || u.Samples < 3 || u.CPUMean <= 0 || u.RSSMax <= 0 || c.ServerName != "server" {
		t.Fatalf("server usage = %+v (name %q)", u, c.ServerName)
	}
	t.Logf("server cpu mean %.1f%% max %.1f%%, rss max %d KiB", u.CPUMean, u.CPUMax, u.RSSMax>>10)
	if log, err := os.ReadFile(filepath.Join(logs, "server-server.log")); err != nil || !strings.Contains(string(log), "serving on") {
		t.Errorf("server log: %v %q", err, log)
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Error("server still listening after the run")
	}
}

func TestRunFailsWhenTheServerCrashes(t *testing.T) {
	addr := freeAddr(t)
	sc := &scenarios.Scenario{Name: "crash", Server: serverBlock("server", addr, "LOADGATE_TEST_EXIT_AFTER=1s"),
		Cases: []scenarios.Case{httpCase("hello", "http://"+addr+"/",
			scenarios.Phase{Name: "m", Duration: 30 * time.Second, Concurrency: 2})}}
	start := time.Now()
	res, err := runner.Run(context.Background(), sc, runner.Config{})
	if !errors.Is(err, sut.ErrServerExited) || !strings.Contains(err.Error(), "simulated crash") {
		t.Fatalf("err = %v, want ErrServerExited with the log tail", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the run went on for %v after the crash", took)
	}
	if res.Interrupted {
		t.Error("a crash is not an interrupt")
	}
	if len(res.Cases) != 1 || len(res.Cases[0].Phases) != 1 || res.Cases[0].Phases[0].Requests == 0 {
		t.Errorf("partial results lost: %+v", res.Cases)
	}
}

func TestRunFailsWhenTheServerIsNeverReady(t *testing.T) {
	addr := freeAddr(t)
	srv := serverBlock("server", addr)
	srv.Command = []string{"sh", "-c", "echo still booting; sleep 60"}
	srv.Ready.Timeout = 500 * time.Millisecond
	sc := &scenarios.Scenario{Name: "slow", Server: srv,
		Cases: []scenarios.Case{httpCase("hello", "http://"+addr+"/", scenarios.Phase{Name: "m", Requests: 10, Concurrency: 1})}}
	_, err := runner.Run(context.Background(), sc, runner.Config{})
	if err == nil || !strings.Contains(err.Error(), "not ready after 500ms") || !strings.Contains(err.Error(), "still booting") {
		t.Fatalf("err = %v", err)
	}
}

func TestInterruptStopsTheServer(t *testing.T) {
	addr := freeAddr(t)
	sc := &scenarios.Scenario{Name: "int", Server: serverBlock("server", addr),
		Cases: []scenarios.Case{httpCase("hello", "http://"+addr+"/", scenarios.Phase{Name: "m", Duration: time.Minute, Concurrency: 2})}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	res, err := runner.Run(ctx, sc, runner.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted {
		t.Error("not marked interrupted")
	}
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Error("server still listening after an interrupted run")
	}
}

// Same-job A/B: two targets, each with its own server, trials interleaved.
func TestInterleavedTrialsWithTwoServers(t *testing.T) {
	a, b := freeAddr(t), freeAddr(t)
	phase := scenarios.Phase{Name: "m", Duration: 300 * time.Millisecond, Concurrency: 2, Trials: 3, Interleave: true}
	ca, cb := httpCase("main", "http://"+a+"/", phase), httpCase("pr", "http://"+b+"/", phase)
	ca.Target.Server, cb.Target.Server = serverBlock("main", a), serverBlock("pr", b)
	cb.Target.BaselineTarget = "main"
	sc := &scenarios.Scenario{Name: "ab", Cases: []scenarios.Case{ca, cb}}
	var order []string
	res, err := runner.Run(context.Background(), sc, runner.Config{Observer: recordOrderObserver(&order)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"main", "pr", "main", "pr", "main", "pr"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("trial order %v, want alternating %v", order, want)
	}
	for _, c := range res.Cases {
		if len(c.Phases) != 1 || len(c.Phases[0].Trials) != 3 || c.Server == nil || c.ServerName != c.Target {
			t.Errorf("case %s: %d phases, server %v (%q)", c.ID, len(c.Phases), c.Server != nil, c.ServerName)
		}
	}
}

type orderObserver struct{ order *[]string }

func (o orderObserver) PhaseStarted(s results.Snapshot)                { *o.order = append(*o.order, s.Case) }
func (orderObserver) Progress(results.Snapshot)                        {}
func (orderObserver) PhaseDone(results.Snapshot, *results.PhaseResult) {}

func recordOrderObserver(order *[]string) runner.Observer { return orderObserver{order} }
