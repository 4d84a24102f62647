package exporters

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckSink takes nothing until released, then remembers what it sent.
type stuckSink struct {
	release chan struct{}
	mu      sync.Mutex
	sent    []time.Time
	closed  bool
}

func (s *stuckSink) send(ctx context.Context, batches []Batch) error {
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range batches {
		s.sent = append(s.sent, b.Time)
	}
	return nil
}

func (s *stuckSink) close() error { s.closed = true; return nil }

func batchAt(i int) Batch { return Batch{Time: time.Unix(int64(i), 0)} }

// A sink that takes nothing never holds up offer: the queue keeps the
// newest updates and drops the oldest; once the sink moves again, it gets
// those newest, in order, and the loss counts every update it never got.
func TestQueueDropsTheOldest(t *testing.T) {
	s := &stuckSink{release: make(chan struct{})}
	q := newQueue("test", s, time.Hour, 5)
	for i := range 100 {
		q.offer(batchAt(i)) // would hang here if offer waited for the sink
	}
	close(s.release)
	msg := q.close(time.Hour)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		t.Error("the sink was not closed")
	}
	n := len(s.sent)
	// The push under way when the sink got stuck holds what the queue had
	// then: at most its 5.
	if n < 5 || n > 10 || !slices.IsSortedFunc(s.sent, time.Time.Compare) {
		t.Fatalf("sent %v, want the 5 newest (and perhaps up to 5 from the start), in order", s.sent)
	}
	for i, at := range s.sent[n-5:] {
		if !at.Equal(batchAt(95 + i).Time) {
			t.Fatalf("sent %v, want 95…99 at its end", s.sent)
		}
	}
	lost := 100 - n
	want := "test: " + strconv.Itoa(lost) + " of 100 pushes failed (the receiver fell behind); the run's results are unaffected"
	if msg != want {
		t.Fatalf("said %q, want %q", msg, want)
	}
}

// A sink still stuck when the run ends is given up after the wait: what
// it had and what was queued are lost, and said so.
func TestQueueGivesUpOnAStuckSink(t *testing.T) {
	s := &stuckSink{release: make(chan struct{})}
	q := newQueue("test", s, time.Hour, 10)
	for i := range 3 {
		q.offer(batchAt(i))
	}
	msg := q.close(10 * time.Millisecond)
	if !strings.HasPrefix(msg, "test: 3 of 3 pushes failed (context canceled)") {
		t.Fatalf("said %q", msg)
	}
	q.offer(batchAt(4)) // after close: ignored, not counted
	if again := q.loss(nil); again != msg {
		t.Fatalf("after close: %q, want %q unchanged", again, msg)
	}
}

type failingSink struct{ closeErr error }

func (failingSink) send(context.Context, []Batch) error { return errors.New("disk full") }
func (f failingSink) close() error                      { return f.closeErr }

func TestQueueSaysTheFirstError(t *testing.T) {
	q := newQueue("json-lines x.jsonl", failingSink{}, time.Hour, 10)
	q.offer(batchAt(1))
	q.offer(batchAt(2))
	if msg := q.close(time.Hour); msg != "json-lines x.jsonl: 2 of 2 pushes failed (disk full); the run's results are unaffected" {
		t.Fatalf("said %q", msg)
	}
	q = newQueue("json-lines x.jsonl", failingSink{closeErr: errors.New("close: bad descriptor")}, time.Hour, 10)
	if msg := q.close(time.Hour); msg != "json-lines x.jsonl: close: bad descriptor; the run's results are unaffected" {
		t.Fatalf("said %q", msg)
	}
	q = newQueue("quiet", &stuckSink{release: make(chan struct{})}, time.Hour, 10)
	if msg := q.close(time.Hour); msg != "" {
		t.Fatalf("nothing offered, said %q", msg)
	}
}
