//go:build unix

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScenarioThatIsNotAFileIsRefused: a FIFO would block validate and run
// until something wrote to it. A regression would hang, so the command
// runs under a guard that fails the test instead.
func TestScenarioThatIsNotAFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, args := range [][]string{{"validate", fifo}, {"run", "-o", "", fifo}, {"validate", dir}} {
		done := make(chan invocation, 1)
		go func() { done <- invoke(t, context.Background(), nil, args...) }()
		select {
		case r := <-done:
			if r.code != ExitUsage || !strings.Contains(r.stderr, "is a named pipe (FIFO), not a regular file") {
				t.Errorf("%q: exit %d, want 2 naming the FIFO\n%s", args, r.code, r.stderr)
			}
		case <-time.After(30 * time.Second):
			// Release the blocked open so the goroutine can end.
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			t.Fatalf("%q blocked on a FIFO", args)
		}
	}
}
