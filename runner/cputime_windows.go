//go:build windows

package runner

import (
	"syscall"
	"time"
)

// cpuTime is the process's user + kernel CPU time so far.
func cpuTime() time.Duration {
	self, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var creation, exit, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(self, &creation, &exit, &kernel, &user); err != nil {
		return 0
	}
	return filetimeDuration(kernel) + filetimeDuration(user)
}

// filetimeDuration reads a FILETIME that holds a duration, in 100 ns units
// (Filetime.Nanoseconds would subtract the 1601 epoch).
func filetimeDuration(ft syscall.Filetime) time.Duration {
	return time.Duration(uint64(ft.HighDateTime)<<32|uint64(ft.LowDateTime)) * 100
}
