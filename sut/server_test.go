package sut

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func sh(script string) []string { return []string{"sh", "-c", script} }

// alive reports whether any process of group pgid is still running. Zombies
// do not count: a container's init may be slow to reap them.
func alive(pgid int) bool {
	deadline := time.Now().Add(2 * time.Second)
	for {
		if !groupRunning(pgid) {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func groupRunning(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		end := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[end+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}

func TestServerReadyByLogThenStopped(t *testing.T) {
	log := filepath.Join(t.TempDir(), "server.log")
	s, err := startServer(context.Background(), serverSpec{
		Name: "logready", Command: sh("echo starting; sleep 0.2; echo 'listening on 127.0.0.1:1'; sleep 0.1 & sleep 60"),
		Ready: readiness{Log: regexp.MustCompile(`listening on`), Timeout: 10 * time.Second}, LogPath: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	pid := s.PID()
	if err := s.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if alive(pid) {
		t.Error("process group still alive after Stop")
	}
	data, _ := os.ReadFile(log)
	if !strings.Contains(string(data), "starting") || !strings.Contains(s.Tail(), "listening on") {
		t.Errorf("log file %q / tail %q miss the server's output", data, s.Tail())
	}
}

// TestServerReadyByHTTPAndTCP checks that startServer returns only once
// the readiness probe succeeded: over HTTP after the health URL stopped
// answering 5xx (not at its first answer), over TCP after a connection was
// accepted; and that the server it returns is running until Stop.
func TestServerReadyByHTTPAndTCP(t *testing.T) {
	const unready = 2 // the health URL answers 503 this many times first
	var hits atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if hits.Add(1) <= unready {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer web.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	tests := []struct {
		name  string
		ready readiness
		check func(t *testing.T)
	}{
		{"http waits for a status below 500", readiness{HTTP: web.URL + "/health", Timeout: 10 * time.Second}, func(t *testing.T) {
			if n := hits.Load(); n != unready+1 {
				t.Errorf("health URL asked %d times before ready, want %d (%d answers of 503, then 204)", n, unready+1, unready)
			}
		}},
		{"tcp waits for a connection", readiness{TCP: l.Addr().String(), Timeout: 10 * time.Second}, func(t *testing.T) {
			select {
			case <-accepted:
			case <-time.After(10 * time.Second): // bounds a failure, never a pass
				t.Error("ready without connecting to the address")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := startServer(context.Background(), serverSpec{Name: "r", Command: sh("sleep 60"), Ready: tc.ready})
			if err != nil {
				t.Fatalf("%+v: %v", tc.ready, err)
			}
			pid := s.PID()
			tc.check(t)
			if !groupRunning(pid) {
				t.Error("the server is not running once ready")
			}
			if err := s.Stop(); err != nil {
				t.Error(err)
			}
			if alive(pid) {
				t.Error("process group still alive after Stop")
			}
		})
	}
}

func TestServerNeverReadyFailsWithinTimeout(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close() // nothing will listen there
	start := time.Now()
	_, err := startServer(context.Background(), serverSpec{Name: "slow", Command: sh("echo booting; sleep 60"),
		Ready: readiness{TCP: addr, Timeout: 500 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "not ready after 500ms") || !strings.Contains(err.Error(), "booting") {
		t.Fatalf("err = %v, want a readiness timeout with the log tail", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("gave up after %v for a 500ms timeout", took)
	}
}

func TestServerExitingEarlyIsReported(t *testing.T) {
	_, err := startServer(context.Background(), serverSpec{Name: "crash", Command: sh("echo 'fatal: port in use' >&2; exit 3"),
		Ready: readiness{TCP: "127.0.0.1:1", Timeout: 10 * time.Second}})
	if !errors.Is(err, ErrServerExited) || !strings.Contains(err.Error(), "port in use") {
		t.Fatalf("err = %v, want ErrServerExited with the log tail", err)
	}
}

func TestServerIgnoringSIGTERMIsKilled(t *testing.T) {
	s, err := startServer(context.Background(), serverSpec{Name: "stubborn",
		Command: sh("trap '' TERM; echo ready; while :; do sleep 0.05; done"), StopTimeout: 300 * time.Millisecond,
		Ready: readiness{Log: regexp.MustCompile("ready"), Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	pid := s.PID()
	start := time.Now()
	_ = s.Stop()
	took := time.Since(start)
	if alive(pid) {
		t.Error("still alive after Stop")
	}
	if took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("stop took %v, want the 300ms stop_timeout then a kill", took)
	}
}

func TestServerCrashMidRunIsVisible(t *testing.T) {
	s, err := startServer(context.Background(), serverSpec{Name: "flaky", Command: sh("echo up; sleep 0.3; echo 'panic: boom'; exit 2"),
		Ready: readiness{Log: regexp.MustCompile("up"), Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("exit not signalled")
	}
	if err := s.Stop(); !errors.Is(err, ErrServerExited) {
		t.Errorf("Stop after a crash = %v, want ErrServerExited", err)
	}
	if !strings.Contains(s.Tail(), "panic: boom") {
		t.Errorf("tail %q lacks the crash", s.Tail())
	}
}
