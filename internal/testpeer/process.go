package testpeer

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// StartProcess starts argv with its output in dir/name.log and stops it by
// its PID when the test ends: SIGTERM, then SIGKILL after 10 s. A failed
// test shows the end of the process's output.
func StartProcess(t testing.TB, dir, name string, argv ...string) *exec.Cmd {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 2000 {
				b = append([]byte("…"), b[len(b)-2000:]...)
			}
			t.Logf("%s's output:\n%s", name, b)
		}
	})
	return cmd
}
