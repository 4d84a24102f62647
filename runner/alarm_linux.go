package runner

import (
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// alarm wakes one goroutine at a time after a delay precise to
// microseconds, through a timerfd in Go's network poller: the goroutine
// parks like one waiting for a socket, holding no thread, and the kernel's
// high-resolution timer wakes the poller. (Go's own timers wake late by up
// to a millisecond: the poller waits with a millisecond timeout.)
//
// Its system calls are raw: arming and reading a non-blocking timerfd
// never blocks, and a call through the scheduler's syscall entry costs
// more than the call itself — it wakes the runtime's monitor thread (a
// futex wake) whenever the process was idle, which an open model at a
// low rate is between arrivals.
type alarm struct {
	f  *os.File
	rc syscall.RawConn
	// fd is f's descriptor, kept because f.Fd() would make the file
	// blocking and take it out of the poller.
	fd    int
	spec  unix.ItimerSpec
	buf   [8]byte
	err   error              // the read's error, set by fired
	armed bool               // fired has not been called since the timer was set
	test  func(uintptr) bool // fired, bound once so that a wait does not allocate
}

func newAlarm() (*alarm, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	// A non-blocking descriptor makes a File that the poller serves.
	a := &alarm{f: os.NewFile(uintptr(fd), "pacing-timerfd"), fd: fd}
	if a.rc, err = a.f.SyscallConn(); err != nil {
		_ = a.f.Close()
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	a.test = a.fired
	return a, nil
}

// wait parks the calling goroutine for d, or less when a stale wake-up
// ends it early; an error when the alarm was closed meanwhile.
func (a *alarm) wait(d time.Duration) error {
	a.spec.Value = unix.NsecToTimespec(int64(max(d, 1)))
	// After close the descriptor may be reused: setting a timer on it then
	// fails (it is not a timerfd, or not open), and the read reports the
	// close.
	_, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(a.fd), 0,
		uintptr(unsafe.Pointer(&a.spec)), 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("timerfd: %w", e)
	}
	a.err, a.armed = nil, true
	if err := a.rc.Read(a.test); err != nil {
		return fmt.Errorf("timerfd: %w", err)
	}
	return a.err
}

// fired says whether the timer has fired: false sends the goroutine to
// wait for the poller. The first call reads the expiry count, in case the
// timer fired before the poller watched for it; a call after the poller
// woke the goroutine takes the wake-up for the expiry and leaves the count
// unread — arming the timer again resets it — which saves a system call
// per arrival. A stale wake-up (an expiry the first read already took)
// returns early; the caller checks the clock and waits again.
func (a *alarm) fired(fd uintptr) bool {
	if !a.armed {
		return true
	}
	a.armed = false
	for {
		_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&a.buf[0])), uintptr(len(a.buf)))
		switch {
		case e == 0:
			return true
		case e == unix.EINTR:
			continue
		case e == unix.EAGAIN:
			return false
		default:
			a.err = fmt.Errorf("timerfd: %w", e)
			return true
		}
	}
}

// close wakes a goroutine parked in wait, with an error, and frees the
// descriptor.
func (a *alarm) close() { _ = a.f.Close() }
