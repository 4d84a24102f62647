package sut

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerDiesWithLoadgate: a loadgate killed with SIGKILL runs no
// cleanup at all, yet the server it started, and the children in that
// server's process group, must not outlive it. The test binary plays
// loadgate (see TestMain in main_test.go).
func TestServerDiesWithLoadgate(t *testing.T) {
	tests := []struct{ name, script string }{
		// The server is the direct child: the death signal ends it.
		{"direct child", "trap '' TERM; echo ready; exec sleep 120"},
		// The real server is a grandchild in the group: the guard ends it.
		{"grandchild", "trap '' TERM; sleep 120 & echo ready; wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			helper := exec.Command(os.Args[0], "-test.run=^$")
			helper.Env = append(os.Environ(), "LOADGATE_TEST_START_SERVER="+tt.script)
			out, err := helper.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := helper.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				_ = helper.Process.Kill()
				_ = helper.Wait()
				t.Fatalf("helper: %v (%q)", err, line)
			}
			pgid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid=")))
			if err != nil {
				t.Fatalf("helper said %q", line)
			}
			t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }) // only if the test failed
			if !groupRunning(pgid) {
				t.Fatal("the server is not running before the kill")
			}
			if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = helper.Wait()
			// Generous: the assertion is "it goes", not how fast.
			deadline := time.Now().Add(10 * time.Second)
			for groupRunning(pgid) {
				if time.Now().After(deadline) {
					t.Fatalf("process group %d outlived its loadgate by 10s", pgid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
