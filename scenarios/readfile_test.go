//go:build unix

package scenarios

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesWhatIsNotAFile: reading a FIFO would block until a
// writer came, and a device may never end. Each case runs under a guard
// so that a regression fails instead of hanging the test binary.
func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	regularFile := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(regularFile, []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip("no unix sockets here:", err)
	}
	defer ln.Close()
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, wantErr string
	}{
		{regularFile, ""},
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{link, "is a named pipe (FIFO), not a regular file"},
		{sock, "is a socket, not a regular file"},
		{"/dev/null", "is a device, not a regular file"},
		{dir, "is a directory"},
		{filepath.Join(dir, "missing.yaml"), "no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			type result struct {
				data []byte
				err  error
			}
			done := make(chan result, 1)
			go func() { data, err := readScenario(tc.path); done <- result{data, err} }()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatalf("readScenario(%s) blocked", tc.path)
			}
			switch {
			case tc.wantErr == "" && (r.err != nil || string(r.data) != "version: 1\n"):
				t.Errorf("readScenario = %q, %v", r.data, r.err)
			case tc.wantErr != "" && (r.err == nil || !strings.Contains(r.err.Error(), tc.wantErr) || !strings.HasPrefix(r.err.Error(), tc.path+": ")):
				t.Errorf("readScenario error = %v, want %s: …%s…", r.err, tc.path, tc.wantErr)
			}
		})
	}
}
