package runner

import "testing"

// TestLoopCores: the closed model's loops leave half the cores to the
// server on the same machine, and there is always one.
func TestLoopCores(t *testing.T) {
	for _, tc := range []struct{ procs, want int }{
		{1, 1}, {2, 1}, {3, 1}, {4, 2}, {5, 2}, {16, 8},
	} {
		if got := loopCores(tc.procs); got != tc.want {
			t.Errorf("loopCores(%d) = %d, want %d", tc.procs, got, tc.want)
		}
	}
}
