package exporters

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// sink delivers batches somewhere: one push is one call.
type sink interface {
	// send delivers batches, oldest first, giving up when ctx ends.
	send(ctx context.Context, batches []Batch) error
	// close releases the sink once nothing more will be sent.
	close() error
}

// maxPerPush is how many queued updates one push carries at most: a
// receiver that fell behind catches up in a few pushes, none of them
// huge.
const maxPerPush = 10

// queue feeds one sink from its own goroutine. offer never waits: when
// the sink falls behind and the queue is full, the oldest update goes.
type queue struct {
	name    string
	sink    sink
	timeout time.Duration // of one push
	limit   int
	wake    chan struct{}
	done    chan struct{}
	ctx     context.Context // ends every push when Close has waited enough
	cancel  context.CancelFunc

	mu        sync.Mutex
	pending   []Batch
	closing   bool
	offered   int64 // updates handed to the queue
	delivered int64 // updates the sink took
	dropped   int64 // updates the queue let go of, full
	firstErr  error
}

func newQueue(name string, s sink, timeout time.Duration, limit int) *queue {
	ctx, cancel := context.WithCancel(context.Background())
	q := &queue{name: name, sink: s, timeout: timeout, limit: limit,
		wake: make(chan struct{}, 1), done: make(chan struct{}), ctx: ctx, cancel: cancel}
	go q.run()
	return q
}

// offer queues b for sending, dropping the oldest update when full.
func (q *queue) offer(b Batch) {
	q.mu.Lock()
	if q.closing {
		q.mu.Unlock()
		return
	}
	q.offered++
	if len(q.pending) >= q.limit {
		q.pending = append(q.pending[:0], q.pending[1:]...)
		q.dropped++
	}
	q.pending = append(q.pending, b)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default: // already woken
	}
}

func (q *queue) run() {
	defer close(q.done)
	for {
		batches, closing := q.take()
		if len(batches) > 0 {
			ctx, cancel := context.WithTimeout(q.ctx, q.timeout)
			err := q.sink.send(ctx, batches)
			cancel()
			q.settle(len(batches), err)
			continue
		}
		if closing {
			return
		}
		<-q.wake
	}
}

// take removes the oldest updates, up to maxPerPush, and says whether
// the queue is closing.
func (q *queue) take() ([]Batch, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.pending), maxPerPush)
	out := append([]Batch(nil), q.pending[:n]...)
	q.pending = append(q.pending[:0], q.pending[n:]...)
	return out, q.closing
}

func (q *queue) settle(n int, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err == nil {
		q.delivered += int64(n)
	} else if q.firstErr == nil {
		q.firstErr = err
	}
}

// close sends what is queued, waiting at most wait for it, then releases
// the sink. It returns the sentence saying what was not delivered, or ""
// when everything was.
func (q *queue) close(wait time.Duration) string {
	q.mu.Lock()
	q.closing = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	finished := true
	select {
	case <-q.done:
	case <-t.C:
		// Pushes still under way, and those left, fail at once now.
		q.cancel()
		select {
		case <-q.done:
		case <-time.After(time.Second):
			finished = false // a sink that ignores its context: leave it
		}
	}
	q.cancel()
	var closeErr error
	if finished {
		closeErr = q.sink.close()
	}
	return q.loss(closeErr)
}

// loss is the sentence about what the queue could not deliver.
func (q *queue) loss(closeErr error) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	const unaffected = "the run's results are unaffected"
	lost := q.offered - q.delivered
	if lost == 0 {
		if closeErr != nil {
			return fmt.Sprintf("%s: %v; %s", q.name, closeErr, unaffected)
		}
		return ""
	}
	var why string
	switch {
	case q.firstErr != nil:
		why = q.firstErr.Error()
	case q.dropped > 0:
		why = "the receiver fell behind"
	default:
		why = "still queued when the run ended"
	}
	if q.dropped > 0 && q.firstErr != nil {
		why += fmt.Sprintf("; %d dropped from the full queue", q.dropped)
	}
	return fmt.Sprintf("%s: %d of %d pushes failed (%s); %s", q.name, lost, q.offered, why, unaffected)
}
