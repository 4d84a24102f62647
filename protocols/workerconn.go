package protocols

import (
	"context"
	"net"
	"sync"
	"time"
)

// interruptDeadline is a deadline long past: setting it wakes whatever a
// connection is blocked on.
var interruptDeadline = time.Unix(1, 0)

// WorkerConn is the one connection a worker's client holds (a TCP or a
// WebSocket target's), with what lets a cancelled phase or Close interrupt
// a call blocked on it. Close may run while the worker is blocked in Do:
// an abandoned request must not keep its phase waiting.
type WorkerConn struct {
	mu     sync.Mutex // guards conn and closed
	conn   net.Conn
	closed bool
	// done is the Done channel of the context the hook watches; stop
	// detaches the hook. Only the worker and Close touch them, Close
	// under mu.
	done <-chan struct{}
	stop func() bool
	// began is when the last Begin started, and sinceLast how long
	// before that the one ahead of it did: no connection kept between the
	// two can have sat idle for longer.
	began     time.Time
	sinceLast time.Duration
}

// Watch makes cancelling ctx interrupt a blocked call. The engine passes
// the same phase context to every call, so the hook is registered once per
// client rather than once per request.
func (w *WorkerConn) Watch(ctx context.Context) {
	done := ctx.Done()
	if done == w.done || done == nil {
		return
	}
	w.mu.Lock()
	if w.stop != nil {
		w.stop()
	}
	w.done = done
	w.stop = context.AfterFunc(ctx, w.interrupt)
	w.mu.Unlock()
}

func (w *WorkerConn) interrupt() {
	w.mu.Lock()
	if w.conn != nil {
		_ = w.conn.SetDeadline(interruptDeadline)
	}
	w.mu.Unlock()
}

// Begin readies the worker's connection for one iteration of at most
// timeout (less when ctx's deadline comes first): it opens one with open
// when there is none, reporting the time that took as out.Connect, else
// moves the current one's deadline. Nil means the iteration cannot run:
// out says why, and drop has discarded what state the worker had.
func (w *WorkerConn) Begin(ctx context.Context, timeout time.Duration, out *Outcome,
	open func(ctx context.Context, deadline time.Time, out *Outcome) (net.Conn, ErrorKind), drop func()) net.Conn {
	w.Watch(ctx)
	now := time.Now()
	deadline := now.Add(timeout)
	w.sinceLast, w.began = now.Sub(w.began), now
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	conn := w.Current()
	if conn == nil {
		began := time.Now()
		var kind ErrorKind
		if conn, kind = open(ctx, deadline, out); kind != KindNone {
			out.Kind = kind
			return nil
		}
		out.Connect = time.Since(began)
	} else if err := conn.SetDeadline(deadline); err != nil {
		drop()
		out.Kind, out.Err = KindOther, err
		return nil
	}
	// Checked after the deadline is set, so a cancellation that came
	// before it is not overwritten unseen.
	if err := ctx.Err(); err != nil {
		drop()
		out.Kind, out.Err = KindTimeout, err
		return nil
	}
	return conn
}

// SinceLast is the time between the starts of the last two Begins, at
// most how long a connection kept between them was idle.
func (w *WorkerConn) SinceLast() time.Duration { return w.sinceLast }

// Current is the open connection, or nil.
func (w *WorkerConn) Current() net.Conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.conn
}

// Set makes conn the worker's connection. When Close came first it closes
// conn instead and returns false.
func (w *WorkerConn) Set(conn net.Conn) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		_ = conn.Close()
		return false
	}
	w.conn = conn
	w.mu.Unlock()
	return true
}

// Drop closes the connection; the worker's next call opens another.
func (w *WorkerConn) Drop() {
	w.mu.Lock()
	conn := w.conn
	w.conn = nil
	w.mu.Unlock()
	if conn != nil {
		_ = conn.Close()
	}
}

// Close closes the connection for good and detaches the context hook. It
// may run while a call is blocked, which then returns promptly.
func (w *WorkerConn) Close() error {
	w.mu.Lock()
	w.closed = true
	conn := w.conn
	w.conn = nil
	if w.stop != nil {
		w.stop()
	}
	w.mu.Unlock()
	if conn != nil {
		return conn.Close()
	}
	return nil
}
