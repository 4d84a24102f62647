package runner

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// alarm wakes one goroutine at a time after a delay precise to
// microseconds, through a timerfd in Go's network poller: the goroutine
// parks like one waiting for a socket, holding no thread, and the kernel's
// high-resolution timer wakes the poller. (Go's own timers wake late by up
// to a millisecond: the poller waits with a millisecond timeout.)
type alarm struct {
	f *os.File
	// fd is f's descriptor, kept because f.Fd() would make the file
	// blocking and take it out of the poller.
	fd  int
	buf [8]byte
}

func newAlarm() (*alarm, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	// A non-blocking descriptor makes a File that the poller serves.
	return &alarm{f: os.NewFile(uintptr(fd), "pacing-timerfd"), fd: fd}, nil
}

// wait parks the calling goroutine for d; an error when the alarm was
// closed meanwhile.
func (a *alarm) wait(d time.Duration) error {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(max(d, 1)))}
	// After close the descriptor may be reused: setting a timer on it then
	// fails (it is not a timerfd, or not open), and the read reports the
	// close.
	if err := unix.TimerfdSettime(a.fd, 0, &spec, nil); err != nil {
		return fmt.Errorf("timerfd: %w", err)
	}
	// The read returns the expiry count once the timer has fired.
	_, err := a.f.Read(a.buf[:])
	return err
}

// close wakes a goroutine parked in wait, with an error, and frees the
// descriptor.
func (a *alarm) close() { _ = a.f.Close() }
