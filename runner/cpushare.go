package runner

import (
	"runtime"
	"sync/atomic"
	"time"
)

// cpuShare is cpu spent over wall time, as a fraction of the usable cores.
func cpuShare(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return cpu.Seconds() / wall.Seconds() / float64(runtime.GOMAXPROCS(0))
}

// threadShare is the CPU one thread spent over wall time, at most 1: the
// thread began a moment after the wall time did.
func threadShare(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return min(1, cpu.Seconds()/wall.Seconds())
}

// raiseTo makes v at least x.
func raiseTo(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if old >= x || v.CompareAndSwap(old, x) {
			return
		}
	}
}
