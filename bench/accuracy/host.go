package main

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"time"
)

// hostCPU is the machine-wide CPU time from /proc/stat, in clock ticks.
type hostCPU struct{ busy, total int64 }

// readHostCPU reads the aggregate "cpu" line; false where there is no
// /proc/stat (then only the generator's own health says the machine was busy).
func readHostCPU() (hostCPU, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return hostCPU{}, false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 5 || string(f[0]) != "cpu" {
		return hostCPU{}, false
	}
	var h hostCPU
	for i, field := range f[1:] {
		v, err := strconv.ParseInt(string(field), 10, 64)
		if err != nil {
			return hostCPU{}, false
		}
		h.total += v
		if i != 3 && i != 4 { // idle and iowait are not busy
			h.busy += v
		}
	}
	return h, true
}

// othersShare is the share of the machine's CPU used, between prev and h, by
// other processes than this one, which used own CPU time over wall.
func (h hostCPU) othersShare(prev hostCPU, own, wall time.Duration) float64 {
	total := h.total - prev.total
	if total <= 0 || wall <= 0 {
		return -1
	}
	machine := float64(h.busy-prev.busy) / float64(total)
	mine := own.Seconds() / wall.Seconds() / float64(runtime.NumCPU())
	return max(0, machine-mine)
}
