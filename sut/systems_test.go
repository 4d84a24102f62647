package sut

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

func TestSameServer(t *testing.T) {
	base := func() *scenarios.Server {
		return &scenarios.Server{Name: "server", Command: sh("./hello --delay 1ms"), Dir: "/srv", Env: []string{"A=1"},
			Ready:      scenarios.Ready{HTTP: "http://127.0.0.1:1/health", Log: regexp.MustCompile("up"), Timeout: time.Second},
			StopSignal: "TERM", StopTimeout: time.Second, Pos: scenarios.Pos{Line: 3}}
	}
	for _, tc := range []struct {
		name   string
		change func(*scenarios.Server)
		same   bool
	}{
		{"identical", func(*scenarios.Server) {}, true},
		{"written on another line", func(s *scenarios.Server) { s.Pos.Line = 9 }, true},
		{"an equal pattern compiled again", func(s *scenarios.Server) { s.Ready.Log = regexp.MustCompile("up") }, true},
		{"another flag value", func(s *scenarios.Server) { s.Command = sh("./hello --delay 5ms") }, false},
		{"another environment", func(s *scenarios.Server) { s.Env = []string{"A=2"} }, false},
		{"another directory", func(s *scenarios.Server) { s.Dir = "/srv2" }, false},
		{"another readiness check", func(s *scenarios.Server) { s.Ready.HTTP = "http://127.0.0.1:2/health" }, false},
		{"another log pattern", func(s *scenarios.Server) { s.Ready.Log = regexp.MustCompile("ready") }, false},
		{"another stop signal", func(s *scenarios.Server) { s.StopSignal = "INT" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base()
			tc.change(b)
			if got := sameServer(base(), b); got != tc.same {
				t.Errorf("sameServer = %v, want %v", got, tc.same)
			}
		})
	}
}

// TestPrepareRestartsAServerThatDiffers runs three cases of a matrix over
// a server's setting, two of which resolve it alike: the server is
// restarted once the setting changes, kept while it does not, and its log
// holds the output of every start.
func TestPrepareRestartsAServerThatDiffers(t *testing.T) {
	logs := t.TempDir()
	srv := func(delay string) *scenarios.Server {
		return &scenarios.Server{Name: "server", Command: sh("echo started with " + delay + "; exec sleep 60"),
			Ready: scenarios.Ready{Log: regexp.MustCompile("started"), Timeout: 20 * time.Second}, StopSignal: "TERM", StopTimeout: 5 * time.Second}
	}
	sc := &scenarios.Scenario{Name: "sweep", Server: srv("1ms"), Cases: []scenarios.Case{
		{ID: "api delay=1ms", Target: scenarios.Target{Name: "api"}, Server: srv("1ms")},
		{ID: "static delay=1ms", Target: scenarios.Target{Name: "static"}, Server: srv("1ms")},
		{ID: "api delay=5ms", Target: scenarios.Target{Name: "api"}, Server: srv("5ms")},
	}}
	sys := NewSystems(Options{LogDir: logs}, func(err error) { t.Errorf("server exited: %v", err) })
	defer sys.StopAll()
	var pids []int
	for i := range sc.Cases {
		if err := sys.Prepare(context.Background(), sc, []*scenarios.Case{&sc.Cases[i]}); err != nil {
			t.Fatal(err)
		}
		m, name := sys.Watch(sc, &sc.Cases[i])
		if m == nil || name != "server" {
			t.Fatalf("case %s: watching %v %q", sc.Cases[i].ID, m, name)
		}
		u, err := m.Stop()
		if err != nil || !u.Sampled() {
			t.Errorf("case %s: usage %+v, %v", sc.Cases[i].ID, u, err)
		}
		pids = append(pids, u.PID)
	}
	if pids[0] != pids[1] || pids[1] == pids[2] {
		t.Errorf("server pids per case %v: want the first two alike (same command) and the third new", pids)
	}
	sys.StopAll()
	log, err := os.ReadFile(filepath.Join(logs, "server-server.log"))
	if err != nil || !strings.Contains(string(log), "started with 1ms") || !strings.Contains(string(log), "started with 5ms") {
		t.Errorf("server log %q (%v): want the output of both starts", log, err)
	}
	if groupRunning(pids[2]) {
		t.Error("the last server still runs after StopAll")
	}
}

// TestMonitorsAreCheckedBeforeTheRun: a monitored pid that names no
// running process is refused, saying where the monitor is written.
func TestMonitorsAreCheckedBeforeTheRun(t *testing.T) {
	gone := &scenarios.Monitor{PID: 1 << 30, Pos: scenarios.Pos{File: "s.yaml", Line: 4, Col: 10}}
	self := &scenarios.Monitor{PID: os.Getpid()}
	for _, tc := range []struct {
		name string
		sc   *scenarios.Scenario
		want string // "" for none
	}{
		{"the scenario's monitor", &scenarios.Scenario{Monitor: gone, Cases: []scenarios.Case{{ID: "a"}}},
			"s.yaml:4:10: monitor: process 1073741824 is gone: nothing can be measured of it; start it before the run, or name one that runs"},
		{"a target's", &scenarios.Scenario{Cases: []scenarios.Case{
			{ID: "a", Target: scenarios.Target{Name: "a", Monitor: self}},
			{ID: "b", Target: scenarios.Target{Name: "b", Monitor: gone}}}},
			"s.yaml:4:10: monitor: process 1073741824 is gone"},
		{"a running process", &scenarios.Scenario{Monitor: self, Cases: []scenarios.Case{{ID: "a"}}}, ""},
		{"a process found by its command line that is gone", &scenarios.Scenario{
			Monitor: &scenarios.Monitor{Process: regexp.MustCompile(`^no such program anywhere$`)}, Cases: []scenarios.Case{{ID: "a"}}},
			`monitor: no process matches "^no such program anywhere$"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckMonitors(tc.sc)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
				t.Errorf("CheckMonitors = %v, want %q", err, tc.want)
			}
		})
	}
}
