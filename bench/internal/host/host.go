// Package host is what the bench programs need of the machine they run on:
// how busy it is, since they judge real-time accuracy only when it was
// quiet enough to tell, and that the targets they are given stay on it.
package host

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"time"
)

// CPU is the machine-wide CPU time from /proc/stat, in clock ticks.
type CPU struct{ busy, total int64 }

// ReadCPU reads the aggregate "cpu" line; false where there is no
// /proc/stat (then only the generator's own health says the machine was busy).
func ReadCPU() (CPU, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPU{}, false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 5 || string(f[0]) != "cpu" {
		return CPU{}, false
	}
	var h CPU
	for i, field := range f[1:] {
		v, err := strconv.ParseInt(string(field), 10, 64)
		if err != nil {
			return CPU{}, false
		}
		h.total += v
		if i != 3 && i != 4 { // idle and iowait are not busy
			h.busy += v
		}
	}
	return h, true
}

// OthersShare is the share of the machine's CPU used, between prev and h,
// by other processes than ours, which used own CPU time over wall; -1 when
// nothing can be said.
func (h CPU) OthersShare(prev CPU, own, wall time.Duration) float64 {
	total := h.total - prev.total
	if total <= 0 || wall <= 0 {
		return -1
	}
	machine := float64(h.busy-prev.busy) / float64(total)
	mine := own.Seconds() / wall.Seconds() / float64(runtime.NumCPU())
	return max(0, machine-mine)
}

// ProcCPU is the CPU time (user + system) process pid has used so far, from
// /proc/PID/stat; false where it cannot be read.
func ProcCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name may hold spaces: the fields start after its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	// After the name: state is field 3 of the file, utime 14 and stime 15.
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * time.Second / clockTicks, true
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// RequireLoopback refuses a target URL (given as -url) whose host is not
// this machine's loopback.
func RequireLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-url %s: only loopback targets are allowed", raw)
}
