//go:build !linux

package websocket

import "time"

// cpuTimes is not measured off Linux.
func cpuTimes() (thread, process time.Duration, ok bool) { return 0, 0, false }
