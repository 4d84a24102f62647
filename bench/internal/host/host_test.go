package host

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestOthersShare(t *testing.T) {
	cpus := float64(runtime.NumCPU())
	for _, tc := range []struct {
		name      string
		prev, now CPU
		own, wall time.Duration
		want      float64
	}{
		{"no time passed", CPU{1, 10}, CPU{1, 10}, 0, time.Second, -1},
		{"no wall time", CPU{0, 0}, CPU{5, 10}, 0, 0, -1},
		{"all busy, none ours", CPU{0, 0}, CPU{10, 10}, 0, time.Second, 1},
		{"half busy, all of it ours", CPU{0, 0}, CPU{5, 10}, time.Duration(cpus * 0.5 * float64(time.Second)), time.Second, 0},
		{"ours more than the machine saw", CPU{0, 0}, CPU{1, 10}, time.Duration(cpus * float64(time.Second)), time.Second, 0},
	} {
		if got := tc.now.OthersShare(tc.prev, tc.own, tc.wall); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("%s: OthersShare = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestReadsThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if h, ok := ReadCPU(); !ok || h.total <= 0 || h.busy > h.total {
		t.Errorf("ReadCPU = %+v, %v", h, ok)
	}
	if _, ok := ProcCPU(os.Getpid()); !ok {
		t.Error("ProcCPU of this process: not read")
	}
	if _, ok := ProcCPU(-1); ok {
		t.Error("ProcCPU of pid -1 was read")
	}
}

func TestRequireLoopback(t *testing.T) {
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8080/": true,
		"http://[::1]:8080/":     true,
		"http://localhost:8080/": true,
		"http://127.1.2.3/":      true,
		"http://192.0.2.1:8080/": false, // not dialled: refused before any traffic
		"http://example.com/":    false,
		"http://[2001:db8::1]/":  false,
		"://no scheme":           false,
	} {
		if err := RequireLoopback(raw); (err == nil) != ok {
			t.Errorf("RequireLoopback(%q) = %v, want allowed %v", raw, err, ok)
		}
	}
}
