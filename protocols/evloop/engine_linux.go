//go:build linux

package evloop

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

// Supported: Linux has epoll.
const Supported = true

// Engine drives one phase's requests of one target (see protocols.Loop):
// a request costs the system calls the kernel needs (a write, a read, and
// with a new connection socket, connect, epoll_ctl and close), a share of
// one epoll_wait, and no goroutine switch.
type Engine struct {
	cfg   Config
	proto Protocol
	conns ConnProtocol // proto, when it owns its connections; else nil
	waker Waker        // proto, when goroutines of its own finish its work; else nil
	cur   int          // the address of cfg.Addrs the next connection tries first
	job   *protocols.LoopJob
	ep    int // the epoll set
	wake  int // an eventfd that Wake writes to, to end a wait; -1 once closed
	// wakeMu keeps Wake, on another goroutine, from writing to wake as it
	// is closed.
	wakeMu sync.Mutex
	slots  []Slot
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
	// freeAt (open model) is when the slots last stopped being all busy:
	// an arrival due before waited for max_in_flight until then.
	freeAt time.Time
	busy   int // requests in flight
	active int // closed model: slots not retired by Claim
	// head and tail end the list of the slots with a request in flight,
	// oldest first (see link); noSlot when there is none.
	head, tail int32
	// opening counts the connections being opened (see Slot.opening),
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
	// spin says how well polling before a wait has paid lately (see
	// nextSpin).
	spin   int
	events [128]unix.EpollEvent
}

// New makes the engine of a target whose connections proto speaks.
func New(cfg Config, proto Protocol) *Engine {
	e := &Engine{cfg: cfg, proto: proto}
	e.conns, _ = proto.(ConnProtocol)
	e.waker, _ = proto.(Waker)
	return e
}

// loopWakeID marks the wake eventfd among the epoll events.
const loopWakeID = -1

// maxWait bounds a wait with nothing due, so that the phase's end is
// noticed without a timer of its own.
const maxWait = 50 * time.Millisecond

// scanEvery is how often in-flight requests are checked for timeouts.
const scanEvery = 10 * time.Millisecond

// Run drives the job's load from this goroutine, locked to its thread for
// good: the thread's timer slack is set to a nanosecond so that the
// kernel ends a wait when asked, and the thread ends with the goroutine.
func (e *Engine) Run(ctx context.Context, job *protocols.LoopJob) error {
	runtime.LockOSThread()
	cpu0 := threadCPU()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	if err := e.setUp(job); err != nil {
		return err
	}
	defer e.tearDown()
	if job.Busy != nil {
		defer func() { job.Busy(threadCPU() - cpu0) }()
	}
	stop := context.AfterFunc(ctx, e.Wake)
	defer stop()
	err := e.drive(ctx)
	why := protocols.ErrUnfinished
	if ctx.Err() != nil {
		why = protocols.ErrStopped
	}
	e.giveUp(why)
	return err
}

// threadCPU is the CPU time the calling thread has used.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// drive sends the job's requests until job.Stop, and handles their
// answers until they are all in, job.End passes or ctx is done.
func (e *Engine) drive(ctx context.Context) error {
	job := e.job
	for {
		now := protocols.Now()
		if ctx.Err() != nil || !now.Before(job.End) {
			return nil
		}
		e.expire(now)
		if !e.stopped && !now.Before(job.Stop) {
			e.stopSending(job.Stop)
		}
		switch {
		case e.stopped:
		case job.Arrival != nil:
			e.sendDue(now)
			now = protocols.Now() // sending took time, which the wait must not add
		default:
			e.wakeSlots(now)
			e.sendReady()
		}
		if e.finished() {
			return nil
		}
		wait := e.waitFor(now)
		e.flush()
		n, err := e.await(now, wait)
		if err != nil {
			return err
		}
		e.handle(n)
	}
}

// handle handles the first n events of the last poll.
func (e *Engine) handle(n int) {
	for _, ev := range e.events[:n] {
		switch {
		case ev.Fd >= 0:
			e.proto.Event(int(ev.Fd), ev.Events)
		case ev.Fd != loopWakeID:
			e.handleConn(ev.Fd, ev.Events)
		default:
			e.woken()
		}
	}
}

// setUp makes the epoll set, the wake eventfd and the slots.
func (e *Engine) setUp(job *protocols.LoopJob) error {
	var err error
	if e.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return fmt.Errorf("event loop: epoll_create1: %w", err)
	}
	if e.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		unix.Close(e.ep)
		return fmt.Errorf("event loop: eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: loopWakeID}
	if err = unix.EpollCtl(e.ep, unix.EPOLL_CTL_ADD, e.wake, &ev); err != nil {
		unix.Close(e.wake)
		unix.Close(e.ep)
		return fmt.Errorf("event loop: epoll_ctl: %w", err)
	}
	e.job = job
	e.head, e.tail = noSlot, noSlot
	e.publishOldest()
	if job.Arrival == nil {
		e.setUpClosed()
	}
	e.nextScan = protocols.Now().Add(scanEvery)
	e.oversleep = maxSpinLead // until its waits have shown how late they end
	return nil
}

// tearDown closes every connection; no request is in flight any more
// (see giveUp).
func (e *Engine) tearDown() {
	for i := range e.slots {
		e.Close(i)
	}
	e.wakeMu.Lock()
	unix.Close(e.wake)
	e.wake = -1
	e.wakeMu.Unlock()
	unix.Close(e.ep)
}

// Wake ends the loop's wait, from any goroutine: the one that ends ctx,
// or one of a Waker's. It may come late enough to find the loop over: the
// eventfd's number may then belong to another file already, which must
// not be written to.
func (e *Engine) Wake() {
	e.wakeMu.Lock()
	defer e.wakeMu.Unlock()
	if e.wake < 0 {
		return
	}
	one := uint64(1)
	_, _ = unix.Write(e.wake, (*[8]byte)(unsafe.Pointer(&one))[:])
}

// woken takes the wake-ups in: the loop's round that follows notices a
// ctx that ended, and a Waker takes in what its goroutines finished.
func (e *Engine) woken() {
	var count [8]byte
	_, _, _ = unix.RawSyscall(unix.SYS_READ, uintptr(e.wake), uintptr(unsafe.Pointer(&count[0])), uintptr(len(count)))
	if e.waker != nil {
		e.waker.Woken()
	}
}

// finished reports whether the load is all sent and answered.
func (e *Engine) finished() bool {
	switch {
	case e.busy > 0:
		return false
	case e.stopped:
		return true
	case e.job.Arrival == nil:
		return e.active == 0
	}
	return e.exhausted
}

// waitFor is how long the loop may block: until spinLead before the next
// arrival it can send, the next timeout scan with work, job.Stop while it
// sends or job.End; 0 means poll.
func (e *Engine) waitFor(now time.Time) time.Duration {
	job := e.job
	wait := min(maxWait, job.End.Sub(now))
	if !e.stopped {
		wait = min(wait, job.Stop.Sub(now))
	}
	switch {
	case e.stopped:
	case job.Arrival != nil:
		if e.haveDue && e.canSend() {
			wait = min(wait, e.due.Sub(now))
		}
	case len(e.ready) > 0:
		return 0
	default:
		if at, ok := e.nextWake(); ok {
			wait = min(wait, at.Sub(now))
		}
	}
	if at, ok := e.nextExpiry(); ok {
		wait = min(wait, at.Sub(now))
	}
	lead := spinLead(e.gap, e.oversleep)
	if wait <= lead {
		return 0
	}
	return wait - lead
}
