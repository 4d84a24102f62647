package websocket

import (
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD, which package syscall lacks.
const rusageThread = 1

// cpuTimes is the CPU time (user + system) of the calling thread and of
// the process.
func cpuTimes() (thread, process time.Duration, ok bool) {
	var t, p syscall.Rusage
	if syscall.Getrusage(rusageThread, &t) != nil || syscall.Getrusage(syscall.RUSAGE_SELF, &p) != nil {
		return 0, 0, false
	}
	cpu := func(r *syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return cpu(&t), cpu(&p), true
}
