package runner

import (
	"runtime"
	"time"
)

// cpuShare is cpu spent over wall time, as a fraction of the usable cores.
func cpuShare(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return cpu.Seconds() / wall.Seconds() / float64(runtime.GOMAXPROCS(0))
}
