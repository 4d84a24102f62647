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
	idle []int32
	free []*loopRead // response buffers and parsers no slot holds (see takeRead)
	// freeAt (open model) is when the slots last stopped being all busy:
	// an arrival due before waited for max_in_flight until then.
	freeAt time.Time
	busy   int // requests in flight
	active int // closed model: slots not retired by Claim
	// head and tail end the list of the slots with a request in flight,
	// oldest first (see link); noSlot when there is none.
	head, tail int32
	// opening counts the connections being opened (see loopConn.opening),
	// sockets those open; maxSockets, once the system has refused one
	// more, is how many it allows (0: no limit met yet).
	opening, sockets, maxSockets int
	// The open model's next arrival: number sent, due at due.
	sent      int64
	due       time.Time
	gap       time.Duration // between the last two arrivals' due times
	haveDue   bool
	exhausted bool
	stopped   bool      // job.Stop has passed: no more requests are sent
	nextScan  time.Time // when to look for requests past their timeout
	noPwait2  bool      // the kernel lacks epoll_pwait2: wait in whole milliseconds
	// oversleep is how late the thread's recent blocking waits ended past
	// their timeout, smoothed (see nextOversleep): the lead it needs.
	oversleep time.Duration
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

// spinMargin is what the lead keeps beyond the thread's usual oversleep,
// for the wake-ups that come later than usual.
const spinMargin = 5 * time.Microsecond

// spinLead is how long before an arrival the loop polls, given the gap
// between the last two arrivals and how late its waits end: the usual
// oversleep and a margin, and at most a quarter of the gap. Every
// microsecond of it is CPU spent per arrival, most of a request's cost at
// low rates, so it is no longer than the wake-ups need. A thread that
// polls all the time looks busy to the kernel's scheduler, which then
// lets the server's threads run first and sends arrivals milliseconds
// late, so at high rates the loop rather blocks and takes the wake-up's
// tens of microseconds.
func spinLead(gap, oversleep time.Duration) time.Duration {
	return max(0, min(maxSpinLead, gap/4, oversleep+spinMargin))
}

// nextOversleep folds one wait's lateness into the smoothed oversleep
// (an exponentially weighted mean over about 8 waits). A wait that ended
// much later than usual, the thread descheduled for others, counts as
// twice maxSpinLead: no lead could have made that up.
func nextOversleep(smoothed, late time.Duration) time.Duration {
	late = max(0, min(late, 2*maxSpinLead))
	return smoothed + (late-smoothed)/8
}

// maxRawWait is the longest wait the loop makes without telling the
// runtime (see poll).
const maxRawWait = time.Millisecond

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
	err := l.drive(ctx)
	why := protocols.ErrUnfinished
	if ctx.Err() != nil {
		why = protocols.ErrStopped
	}
	l.giveUp(why)
	return err
}

// drive sends the job's requests until job.Stop, and handles their
// answers until they are all in, job.End passes or ctx is done.
func (l *httpLoop) drive(ctx context.Context) error {
	job := l.job
	for {
		now := protocols.Now()
		if ctx.Err() != nil || !now.Before(job.End) {
			return nil
		}
		l.expire(now)
		if !l.stopped && !now.Before(job.Stop) {
			l.stopSending(job.Stop)
		}
		switch {
		case l.stopped:
		case job.Arrival != nil:
			l.sendDue(now)
			now = protocols.Now() // sending took time, which the wait must not add
		default:
			l.wakeSlots(now)
			l.sendReady()
		}
		if l.finished() {
			return nil
		}
		wait := l.waitFor(now)
		n, err := l.poll(wait)
		if err != nil {
			return err
		}
		if n == 0 && wait > 0 {
			l.oversleep = nextOversleep(l.oversleep, protocols.Now().Sub(now.Add(wait)))
		}
		l.handle(n)
	}
}

// handle handles the first n events of the last poll.
func (l *httpLoop) handle(n int) {
	for _, ev := range l.events[:n] {
		if ev.Fd != loopWakeID {
			l.onEvent(int(ev.Fd), ev.Events)
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
	l.head, l.tail = noSlot, noSlot
	l.publishOldest()
	if job.Arrival == nil {
		l.setUpClosed()
	}
	l.nextScan = protocols.Now().Add(scanEvery)
	l.oversleep = maxSpinLead // until its waits have shown how late they end
	return nil
}

// tearDown closes every connection; no request is in flight any more
// (see giveUp).
func (l *httpLoop) tearDown() {
	for i := range l.conns {
		l.closeConn(&l.conns[i])
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
	switch {
	case l.busy > 0:
		return false
	case l.stopped:
		return true
	case l.job.Arrival == nil:
		return l.active == 0
	}
	return l.exhausted
}

// waitFor is how long the loop may block: until spinLead before the next
// arrival it can send, the next timeout scan with work, job.Stop while it
// sends or job.End; 0 means poll.
func (l *httpLoop) waitFor(now time.Time) time.Duration {
	job := l.job
	wait := min(maxWait, job.End.Sub(now))
	if !l.stopped {
		wait = min(wait, job.Stop.Sub(now))
	}
	switch {
	case l.stopped:
	case job.Arrival != nil:
		if l.haveDue && l.canSend() {
			wait = min(wait, l.due.Sub(now))
		}
	case len(l.ready) > 0:
		return 0
	default:
		if at, ok := l.nextWake(); ok {
			wait = min(wait, at.Sub(now))
		}
	}
	if at, ok := l.nextExpiry(); ok {
		wait = min(wait, at.Sub(now))
	}
	lead := spinLead(l.gap, l.oversleep)
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
			// A long wait looks first, which costs no hand-off to the
			// scheduler: under load something is usually ready.
			if wait > maxRawWait {
				r, _, e = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(evs), uintptr(len(l.events)), 0, 0, 0)
				if e != 0 || r > 0 {
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
			r, _, e = call(unix.SYS_EPOLL_PWAIT2, uintptr(l.ep), uintptr(evs), uintptr(len(l.events)),
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
