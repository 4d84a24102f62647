//go:build linux

package evloop

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// maxRawWait is the longest wait the loop makes without telling the
// runtime (see poll).
const maxRawWait = time.Millisecond

// poll waits up to wait for events, or only looks when wait is 0.
func (e *Engine) poll(wait time.Duration) (int, error) {
	evs := unsafe.Pointer(&e.events[0])
	for {
		var r uintptr
		var errno unix.Errno
		switch {
		case wait <= 0:
			r, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(e.ep), uintptr(evs), uintptr(len(e.events)), 0, 0, 0)
		case !e.noPwait2:
			// A long wait looks first, which costs no hand-off to the
			// scheduler: under load something is usually ready.
			if wait > maxRawWait {
				r, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(e.ep), uintptr(evs), uintptr(len(e.events)), 0, 0, 0)
				if errno != 0 || r > 0 {
					break
				}
			}
			ts := unix.NsecToTimespec(int64(wait))
			// A short wait is made without telling the runtime: told,
			// it hands the thread's P to another thread after 20 µs and
			// takes it back when the wait ends, several thread switches
			// per arrival that cost more than the request at low rates.
			// Untold, the P stays idle for at most maxRawWait, and a
			// preemption's signal (the GC's, the scheduler's) ends the
			// wait early with EINTR.
			call := unix.Syscall6
			if wait <= maxRawWait {
				call = unix.RawSyscall6
			}
			r, _, errno = call(unix.SYS_EPOLL_PWAIT2, uintptr(e.ep), uintptr(evs), uintptr(len(e.events)),
				uintptr(unsafe.Pointer(&ts)), 0, 0)
			if errno == unix.ENOSYS {
				e.noPwait2 = true
				continue
			}
		default:
			ms := (wait + time.Millisecond - 1) / time.Millisecond
			r, _, errno = unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(e.ep), uintptr(evs), uintptr(len(e.events)), uintptr(ms), 0, 0)
		}
		switch errno {
		case 0:
			return int(r), nil
		case unix.EINTR:
			return 0, nil
		default:
			return 0, fmt.Errorf("event loop: epoll_wait: %w", errno)
		}
	}
}

// await waits up to wait from now for events: with requests in flight in
// the closed model, it first polls for up to maxSpin while that pays (see
// nextSpin), then blocks.
func (e *Engine) await(now time.Time, wait time.Duration) (int, error) {
	if wait <= 0 || e.busy == 0 || e.job.Arrival != nil {
		n, err := e.poll(wait)
		if err == nil && n == 0 && wait > 0 {
			e.oversleep = nextOversleep(e.oversleep, protocols.Now().Sub(now.Add(wait)))
		}
		return n, err
	}
	spinUntil, worthUntil := now.Add(min(maxSpin, wait)), now.Add(spinWorth)
	if spinning(e.spin) {
		for {
			n, err := e.poll(0)
			if err != nil || n > 0 {
				e.spin = nextSpin(e.spin, protocols.Now().Before(worthUntil))
				return n, err
			}
			if !protocols.Now().Before(spinUntil) {
				break
			}
		}
	}
	n, err := e.poll(wait)
	if err == nil {
		e.spin = nextSpin(e.spin, n > 0 && protocols.Now().Before(worthUntil))
	}
	return n, err
}
