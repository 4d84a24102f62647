package runner

import (
	"runtime"
	"testing"
	"time"
)

func TestCPUShare(t *testing.T) {
	cores := float64(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		cpu, wall time.Duration
		want      float64
	}{
		{time.Second, time.Second, 1 / cores},
		{0, time.Second, 0},
		{time.Second, 0, 0}, // no wall time: nothing to judge
		{time.Duration(cores) * 2 * time.Second, 2 * time.Second, 1},
	} {
		if got := cpuShare(tc.cpu, tc.wall); got != tc.want {
			t.Errorf("cpuShare(%v, %v) = %v, want %v", tc.cpu, tc.wall, got, tc.want)
		}
	}
}
