package runner_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
)

// startSleeper starts a process for a monitor to watch, ended by the test.
func startSleeper(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd.Process.Pid
}

// TestNamedMonitors: with no server started, the first entry of monitors:
// stands for server.* and the others are kept beside it, each sampled over
// every case, each with its CPU per request of the case's requests.
func TestNamedMonitors(t *testing.T) {
	web, err := demoserver.Start(context.Background(), demoserver.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	app, db := startSleeper(t), startSleeper(t)
	target := "http://" + web.HTTPAddr() + "/"
	phase := scenarios.Phase{Name: "m", Requests: 20, Concurrency: 1}
	sc := &scenarios.Scenario{Name: "named",
		Monitors: []scenarios.NamedMonitor{{Name: "app", Monitor: scenarios.Monitor{PID: app}}, {Name: "db", Monitor: scenarios.Monitor{PID: db}}},
		Cases:    []scenarios.Case{httpCase("a", target, phase), httpCase("b", target, phase)}}

	res, err := runner.Run(context.Background(), sc, runner.Config{MonitorEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cases {
		if c.Server == nil || c.ServerName != "app" || c.Server.PID != app || c.Server.Samples != 2 {
			t.Errorf("case %s: server %q %+v, want app (pid %d) sampled twice", c.ID, c.ServerName, c.Server, app)
		}
		if len(c.Servers) != 1 || c.Servers[0].Name != "db" || c.Servers[0].PID != db || c.Servers[0].Samples != 2 {
			t.Fatalf("case %s: servers %+v, want db (pid %d) sampled twice", c.ID, c.Servers, db)
		}
		if c.Server.CPUPerRequestUS == nil || c.Servers[0].CPUPerRequestUS == nil {
			t.Errorf("case %s: no CPU per request for app or db", c.ID)
		}
	}
}

// TestNamedMonitorGoneBeforeTheRun: a database that is not running fails
// the run before any load, as a gone monitor: does.
func TestNamedMonitorGoneBeforeTheRun(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	var order []string
	sc := &scenarios.Scenario{Name: "gone",
		Monitors: []scenarios.NamedMonitor{{Name: "db", Monitor: scenarios.Monitor{PID: gone.Process.Pid}}},
		Cases:    []scenarios.Case{httpCase("a", "http://127.0.0.1:1/", scenarios.Phase{Name: "m", Requests: 1, Concurrency: 1})}}
	_, err := runner.Run(context.Background(), sc, runner.Config{Observer: recordOrderObserver(&order)})
	if err == nil {
		t.Fatal("the run went on without its database")
	}
	if len(order) != 0 {
		t.Errorf("phases %v ran: want none", order)
	}
}
