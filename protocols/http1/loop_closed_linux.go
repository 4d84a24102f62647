//go:build linux

package http1

import (
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// The closed model on the loop: each slot is a worker that sends its next
// request when the previous one is done, once its start time has come (a
// ramp) and after its think time.

// setUpClosed makes the job's slots; those that start at once are ready.
func (l *httpLoop) setUpClosed() {
	job := l.job
	l.conns = make([]loopConn, job.Slots)
	l.ready = make([]int32, 0, job.Slots)
	l.spare = make([]int32, 0, job.Slots)
	l.thinking = newWakeQueue(job.Slots)
	for i := range l.conns {
		l.conns[i].fd = -1
	}
	l.active = job.Slots
	l.wakeSlots(job.Start)
}

// wakeSlots readies the slots whose start time has come and those done
// thinking.
func (l *httpLoop) wakeSlots(now time.Time) {
	job := l.job
	for l.started < job.Slots && (job.StartAt == nil || !job.Start.Add(job.StartAt(l.started)).After(now)) {
		l.ready = append(l.ready, int32(l.started))
		l.started++
	}
	for {
		i, ok := l.thinking.pop(l.tick(now))
		if !ok {
			break
		}
		l.ready = append(l.ready, i)
	}
}

// nextWake is when the next slot that waits will be ready: its start or
// the end of its think time.
func (l *httpLoop) nextWake() (time.Time, bool) {
	k, ok := l.thinking.next()
	at := l.time(k)
	if l.started < l.job.Slots && l.job.StartAt != nil {
		start := l.job.Start.Add(l.job.StartAt(l.started))
		if !ok || start.Before(at) {
			at, ok = start, true
		}
	}
	return at, ok
}

// rest puts slot i, whose request is done at now, to think before its
// next, or readies it at once.
func (l *httpLoop) rest(i int32, now time.Time) {
	if l.job.Think > 0 {
		l.thinking.push(i, l.tick(now.Add(l.job.Think)))
		return
	}
	l.ready = append(l.ready, i)
}

// sendReady has each slot of the closed model's ready list send its next
// request. A slot whose request fails at once is listed again for the
// next round, after a poll, so that a dead server cannot keep the loop
// from noticing the phase's end.
func (l *httpLoop) sendReady() {
	batch := l.ready
	l.ready = l.spare[:0]
	for _, i := range batch {
		c := &l.conns[i]
		if !l.job.Claim() {
			l.closeConn(c)
			l.active--
			continue
		}
		now := l.tick(protocols.Now())
		l.start(int(i), l.job.Pick(), now, noTick, now)
	}
	l.spare = batch[:0]
}

// wakeQueue is a ring of slots waiting until a time. Every slot waits the
// same think time, so they wake in the order they began to wait: a queue,
// not a heap.
type wakeQueue struct {
	slots      []int32
	at         []tick
	head, size int
}

func newWakeQueue(n int) wakeQueue {
	return wakeQueue{slots: make([]int32, n), at: make([]tick, n)}
}

func (q *wakeQueue) push(i int32, at tick) {
	k := (q.head + q.size) % len(q.slots)
	q.slots[k], q.at[k] = i, at
	q.size++
}

// next is when the first slot wakes.
func (q *wakeQueue) next() (tick, bool) {
	if q.size == 0 {
		return noTick, false
	}
	return q.at[q.head], true
}

// pop takes the first slot when it is awake at now.
func (q *wakeQueue) pop(now tick) (int32, bool) {
	if q.size == 0 || q.at[q.head] > now {
		return 0, false
	}
	i := q.slots[q.head]
	q.head = (q.head + 1) % len(q.slots)
	q.size--
	return i, true
}
