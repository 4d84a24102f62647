package runner_test

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/runner"
	"github.com/loadgate/loadgate/scenarios"
)

// killObserver kills the monitored process when the phase of case kill
// starts: after the case's first sample, before its last.
type killObserver struct {
	kill string
	cmd  *exec.Cmd
}

func (o killObserver) PhaseStarted(s results.Snapshot) {
	if s.Case == o.kill && o.cmd.ProcessState == nil {
		_ = o.cmd.Process.Kill()
		_ = o.cmd.Wait() // reaped: gone, not a zombie
	}
}
func (killObserver) Progress(results.Snapshot)                        {}
func (killObserver) PhaseDone(results.Snapshot, *results.PhaseResult) {}

// TestMonitoredProcessThatDies: a monitored process sampled in the first
// case and killed during the second leaves the first case's figures whole,
// marks the second's Exited, and gives the third no sample at all; the
// load goes on, since loadgate did not start that process. The sampling
// interval is longer than the run: every sample is a case's first or last.
func TestMonitoredProcessThatDies(t *testing.T) {
	web, err := demoserver.Start(context.Background(), demoserver.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	watched := exec.Command("sleep", "60")
	if err := watched.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if watched.ProcessState == nil {
			_ = watched.Process.Kill()
			_ = watched.Wait()
		}
	})
	target := "http://" + web.HTTPAddr() + "/"
	phase := scenarios.Phase{Name: "m", Requests: 20, Concurrency: 1}
	sc := &scenarios.Scenario{Name: "dies", Monitor: &scenarios.Monitor{PID: watched.Process.Pid},
		Cases: []scenarios.Case{httpCase("a", target, phase), httpCase("b", target, phase), httpCase("c", target, phase)}}

	res, err := runner.Run(context.Background(), sc, runner.Config{Observer: killObserver{kill: "b", cmd: watched}, MonitorEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(watched.Process.Pid)
	type seen struct {
		Sampled, Exited bool
		Samples         int
		Reason          string
	}
	want := []seen{
		{Sampled: true, Samples: 2},
		{Sampled: true, Exited: true, Samples: 1, Reason: "process " + pid + " exited"},
		{Reason: "process " + pid + " is gone"},
	}
	if len(res.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(res.Cases), len(want))
	}
	for i, c := range res.Cases {
		u := c.Server
		if u == nil {
			t.Fatalf("case %s: no usage", c.ID)
		}
		if got := (seen{u.Sampled(), u.Exited, u.Samples, u.Reason}); got != want[i] {
			t.Errorf("case %s: %+v, want %+v", c.ID, got, want[i])
		}
		if c.Phases[0].Succeeded == 0 {
			t.Errorf("case %s: the load stopped with the watched process", c.ID)
		}
	}
}

// TestMonitoredProcessGoneBeforeTheRun: no load at all.
func TestMonitoredProcessGoneBeforeTheRun(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	var order []string
	sc := &scenarios.Scenario{Name: "gone", Monitor: &scenarios.Monitor{PID: gone.Process.Pid},
		Cases: []scenarios.Case{httpCase("a", "http://127.0.0.1:1/", scenarios.Phase{Name: "m", Requests: 1, Concurrency: 1})}}
	res, err := runner.Run(context.Background(), sc, runner.Config{Observer: recordOrderObserver(&order)})
	want := "monitor: process " + strconv.Itoa(gone.Process.Pid) + " is gone"
	if err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Errorf("err = %v, want one starting %q", err, want)
	}
	if len(order) != 0 || len(res.Cases) != 0 {
		t.Errorf("phases %v ran, %d cases: want none", order, len(res.Cases))
	}
}
