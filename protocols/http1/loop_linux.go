//go:build linux

package http1

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// loopSupported: Linux has epoll.
const loopSupported = true

// httpLoop is the event loop of one plain HTTP/1.1 target: raw
// non-blocking sockets, one epoll set, and a push parser per connection.
// A request costs the system calls the kernel needs (a write, a read,
// and with a new connection socket, connect, epoll_ctl and close), a share
// of one epoll_wait, and no goroutine switch.
type httpLoop struct {
	loopTarget
	job  *protocols.LoopJob
	ep   int // the epoll set
	wake int // an eventfd that ctx's end writes to, to end a wait; -1 once closed
	// wakeMu keeps wakeUp, on ctx's goroutine, from writing to wake as it
	// is closed.
	wakeMu sync.Mutex
	conns  []loopConn
	// ready (closed model) lists the slots that send their next request
	// in the next round; spare is the other half of the double buffer.
	ready, spare []int32
	// started (closed model) counts the slots whose start time has come:
	// the others wait for it, in order (job.StartAt).
	started int
	// thinking (closed model) holds the slots that wait out job.Think
	// before their next request, in the order they will wake.
	thinking wakeQueue
	// idle (open model) is a stack of the slots free for an arrival; the
	// top was used last, so its connection is the likeliest still open.
	// Slots are made as needed, up to job.Slots.
	idle   []int32
	free   [][]byte  // response buffers no slot holds (see takeBuf)
	freeAt time.Time // open model: when idle last went from empty to not
	busy   int       // requests in flight
	active int       // closed model: slots not retired by Claim
	// The open model's next arrival: number sent, due at due.
	sent      int64
	due       time.Time
	gap       time.Duration // between the last two arrivals' due times
	haveDue   bool
	exhausted bool
	nextScan  time.Time // when to look for requests past their timeout
	noPwait2  bool      // the kernel lacks epoll_pwait2: wait in whole milliseconds
	events    [128]unix.EpollEvent
}

// loopWakeID marks the wake eventfd among the epoll events.
const loopWakeID = -1

// maxSpinLead is the longest the loop stops blocking before an arrival to
// poll instead: even with a timer slack of a nanosecond, a blocked thread
// wakes some tens of microseconds after its timeout (23 µs at the median,
// 36 µs at the 99th percentile on a 2-core VM), which a poll does not wait
// out.
const maxSpinLead = 40 * time.Microsecond

// spinLead is how long before an arrival the loop polls, given the gap
// between the last two arrivals: at most a quarter of it. A thread that
// polls all the time looks busy to the kernel's scheduler, which then
// lets the server's threads run first and sends arrivals milliseconds
// late, so at high rates the loop rather blocks and takes the wake-up's
// tens of microseconds.
func spinLead(gap time.Duration) time.Duration {
	return max(0, min(maxSpinLead, gap/4))
}

// maxWait bounds a wait with nothing due, so that the phase's end is
// noticed without a timer of its own.
const maxWait = 50 * time.Millisecond

// scanEvery is how often in-flight requests are checked for timeouts.
const scanEvery = 10 * time.Millisecond

// Run drives the job's load from this goroutine, locked to its thread for
// good: the thread's timer slack is set to a nanosecond so that the
// kernel ends a wait when asked, and the thread ends with the goroutine.
func (l *httpLoop) Run(ctx context.Context, job *protocols.LoopJob) error {
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	if err := l.setUp(job); err != nil {
		return err
	}
	defer l.tearDown()
	stop := context.AfterFunc(ctx, l.wakeUp)
	defer stop()
	for {
		now := protocols.Now()
		if ctx.Err() != nil || !now.Before(job.End) {
			return nil
		}
		if l.timeout > 0 && l.busy > 0 {
			l.expire(now)
		}
		if job.Arrival != nil {
			l.sendDue(now)
		} else {
			l.wakeSlots(now)
			l.sendReady()
		}
		if l.finished() {
			return nil
		}
		if job.Arrival != nil {
			now = protocols.Now() // sending took time, which the wait must not add
		}
		n, err := l.poll(l.waitFor(now))
		if err != nil {
			return err
		}
		for _, ev := range l.events[:n] {
			if ev.Fd != loopWakeID {
				l.onEvent(int(ev.Fd), ev.Events)
			}
		}
	}
}

// setUp makes the epoll set, the wake eventfd and the slots.
func (l *httpLoop) setUp(job *protocols.LoopJob) error {
	var err error
	if l.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return fmt.Errorf("event loop: epoll_create1: %w", err)
	}
	if l.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		unix.Close(l.ep)
		return fmt.Errorf("event loop: eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: loopWakeID}
	if err = unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, l.wake, &ev); err != nil {
		unix.Close(l.wake)
		unix.Close(l.ep)
		return fmt.Errorf("event loop: epoll_ctl: %w", err)
	}
	l.job = job
	if job.Arrival == nil {
		l.setUpClosed()
	}
	// The open model's slots are made as arrivals need them: max_in_flight
	// may be a million, of which a fast server keeps a handful busy.
	l.nextScan = protocols.Now().Add(scanEvery)
	return nil
}

// tearDown closes every connection, abandoning the requests in flight.
func (l *httpLoop) tearDown() {
	for i := range l.conns {
		c := &l.conns[i]
		if c.state != connIdle {
			l.job.InFlight.Add(-1)
		}
		l.closeConn(c)
	}
	l.wakeMu.Lock()
	unix.Close(l.wake)
	l.wake = -1
	l.wakeMu.Unlock()
	unix.Close(l.ep)
}

// wakeUp ends the loop's wait; it runs on the goroutine that ends ctx,
// which may be late enough to find the loop over: the eventfd's number
// may then belong to another file already, which must not be written to.
func (l *httpLoop) wakeUp() {
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	if l.wake < 0 {
		return
	}
	one := uint64(1)
	_, _ = unix.Write(l.wake, (*[8]byte)(unsafe.Pointer(&one))[:])
}

// finished reports whether the load is all sent and answered.
func (l *httpLoop) finished() bool {
	if l.job.Arrival == nil {
		return l.active == 0
	}
	return l.exhausted && l.busy == 0
}

// sendDue hands every arrival due by now to a free slot, as long as one is
// free: a later one waits for a slot, and is late by the wait.
func (l *httpLoop) sendDue(now time.Time) {
	job := l.job
	for l.canSend() {
		if !l.haveDue {
			if l.exhausted {
				return
			}
			due, ok := job.Arrival(l.sent)
			if !ok {
				l.exhausted = true
				return
			}
			next := job.Start.Add(due)
			l.gap, l.due, l.haveDue = next.Sub(l.due), next, true
		}
		if l.due.After(now) {
			return
		}
		i, freeSince := l.freeSlot()
		if len(l.idle) > 0 {
			job.IdleHandoff()
		}
		// Lateness is the generator's from when a slot was free for the
		// arrival: a wait for max_in_flight is the server's doing.
		job.Late(now.Sub(later(l.due, freeSince)))
		l.sent++
		job.Sent.Add(1)
		l.haveDue = false
		l.start(i, job.Pick(), l.due, l.due, now)
		now = protocols.Now()
	}
}

// canSend reports whether the open model has a slot for an arrival: an
// idle one, or room for one more.
func (l *httpLoop) canSend() bool {
	return len(l.idle) > 0 || len(l.conns) < l.job.Slots
}

// freeSlot takes the idle slot used last, whose connection is the likeliest
// still open, or makes one, and says since when it has been free.
func (l *httpLoop) freeSlot() (int, time.Time) {
	if n := len(l.idle); n > 0 {
		i := l.idle[n-1]
		l.idle = l.idle[:n-1]
		return int(i), l.freeAt
	}
	l.conns = append(l.conns, loopConn{fd: -1})
	return len(l.conns) - 1, time.Time{}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// waitFor is how long the loop may block: until spinLead before the next
// arrival it can send, the next timeout scan or the phase's end; 0 means
// poll.
func (l *httpLoop) waitFor(now time.Time) time.Duration {
	wait := min(maxWait, l.job.End.Sub(now))
	if l.job.Arrival != nil && l.haveDue && l.canSend() {
		wait = min(wait, l.due.Sub(now))
	}
	if l.job.Arrival == nil {
		if len(l.ready) > 0 {
			return 0
		}
		if at, ok := l.nextWake(); ok {
			wait = min(wait, at.Sub(now))
		}
	}
	if l.timeout > 0 && l.busy > 0 {
		wait = min(wait, l.nextScan.Sub(now))
	}
	lead := spinLead(l.gap)
	if wait <= lead {
		return 0
	}
	return wait - lead
}

// poll waits up to wait for events, or only looks when wait is 0.
func (l *httpLoop) poll(wait time.Duration) (int, error) {
	evs := unsafe.Pointer(&l.events[0])
	for {
		var r uintptr
		var e unix.Errno
		switch {
		case wait <= 0:
			r, _, e = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(evs), uintptr(len(l.events)), 0, 0, 0)
		case !l.noPwait2:
			// A look first, which costs no hand-off to the scheduler:
			// under load something is usually ready.
			r, _, e = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(evs), uintptr(len(l.events)), 0, 0, 0)
			if e != 0 || r > 0 {
				break
			}
			ts := unix.NsecToTimespec(int64(wait))
			r, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.ep), uintptr(evs), uintptr(len(l.events)),
				uintptr(unsafe.Pointer(&ts)), 0, 0)
			if e == unix.ENOSYS {
				l.noPwait2 = true
				continue
			}
		default:
			ms := (wait + time.Millisecond - 1) / time.Millisecond
			r, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(evs), uintptr(len(l.events)), uintptr(ms), 0, 0)
		}
		switch e {
		case 0:
			return int(r), nil
		case unix.EINTR:
			return 0, nil
		default:
			return 0, fmt.Errorf("event loop: epoll_wait: %w", e)
		}
	}
}

// expire fails the requests past their timeout, once per scanEvery.
func (l *httpLoop) expire(now time.Time) {
	if now.Before(l.nextScan) {
		return
	}
	l.nextScan = now.Add(scanEvery)
	for i := range l.conns {
		c := &l.conns[i]
		if c.state != connIdle && !now.Before(c.deadline) {
			l.fail(i, protocols.KindTimeout, l.errTimeout)
		}
	}
}
