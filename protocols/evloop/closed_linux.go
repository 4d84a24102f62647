//go:build linux

package evloop

import (
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// The closed model on the loop: each slot is a worker that sends its next
// request when the previous one is done, once its start time has come (a
// ramp) and after its think time.

// setUpClosed makes the job's slots; those that start at once are ready.
func (e *Engine) setUpClosed() {
	job := e.job
	e.slots = make([]Slot, job.Slots)
	e.ready = make([]int32, 0, job.Slots)
	e.spare = make([]int32, 0, job.Slots)
	e.thinking = newWakeQueue(job.Slots)
	for i := range e.slots {
		e.slots[i].FD = -1
	}
	e.active = job.Slots
	e.proto.Grow(job.Slots)
	e.wakeSlots(job.Start)
}

// wakeSlots readies the slots whose start time has come and those done
// thinking.
func (e *Engine) wakeSlots(now time.Time) {
	job := e.job
	for e.started < job.Slots && (job.StartAt == nil || !job.Start.Add(job.StartAt(e.started)).After(now)) {
		e.ready = append(e.ready, int32(e.started))
		e.started++
	}
	for {
		i, ok := e.thinking.pop(e.tick(now))
		if !ok {
			break
		}
		e.ready = append(e.ready, i)
	}
}

// nextWake is when the next slot that waits will be ready: its start or
// the end of its think time.
func (e *Engine) nextWake() (time.Time, bool) {
	k, ok := e.thinking.next()
	at := e.time(k)
	if e.started < e.job.Slots && e.job.StartAt != nil {
		start := e.job.Start.Add(e.job.StartAt(e.started))
		if !ok || start.Before(at) {
			at, ok = start, true
		}
	}
	return at, ok
}

// rest puts slot i, whose request is done at now, to think before its
// next, or readies it at once.
func (e *Engine) rest(i int32, now time.Time) {
	if e.job.Think > 0 {
		e.thinking.push(i, e.tick(now.Add(e.job.Think)))
		return
	}
	e.ready = append(e.ready, i)
}

// sendReady has each slot of the closed model's ready list send its next
// request. A slot whose request fails at once is listed again for the
// next round, after a poll, so that a dead server cannot keep the loop
// from noticing the phase's end.
func (e *Engine) sendReady() {
	batch := e.ready
	e.ready = e.spare[:0]
	for _, i := range batch {
		if !e.job.Claim() {
			e.Close(int(i))
			e.active--
			continue
		}
		now := e.tick(protocols.Now())
		e.start(int(i), e.job.Pick(), now, noTick, now)
	}
	e.spare = batch[:0]
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
