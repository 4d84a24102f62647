package http1

import (
	"context"
	"sync"
	"time"
)

// How a phase's end reaches the lean clients blocked in a read or a write:
// each client registers with the watch of its context, and the watch sets
// a deadline in the past on every registered connection once the context
// is done.

// watch arranges for ctx's cancellation to interrupt a blocked read or
// write. The registration lasts as long as the context, so a worker that
// calls Do with the same context pays for it once, not per request.
func (c *http1Client) watch(ctx context.Context) {
	done := ctx.Done()
	if done == c.watched {
		return
	}
	c.watched = done
	c.unwatch()
	if done == nil {
		return
	}
	w := watchContext(ctx, c)
	c.mu.Lock()
	closed := c.closed
	if !closed {
		c.watcher = w
	}
	c.mu.Unlock()
	if closed {
		w.remove(c)
	}
}

// unwatch ends the client's registration, if any.
func (c *http1Client) unwatch() {
	c.mu.Lock()
	w := c.watcher
	c.watcher = nil
	c.mu.Unlock()
	if w != nil {
		w.remove(c)
	}
}

// interrupt runs on another goroutine once the watched context is done: a
// deadline in the past wakes whatever the connection is blocked on.
func (c *http1Client) interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.SetDeadline(time.Unix(1, 0))
	}
}

// A ctxWatch interrupts the clients that watch one context, all from one
// goroutine, once the context is done. With a context.AfterFunc per client,
// the end of a phase would start a goroutine per client at once: ten
// thousand new stacks, the peak of a run's memory.
type ctxWatch struct {
	done <-chan struct{}
	stop func() bool // of the context.AfterFunc that runs fire

	mu      sync.Mutex
	fired   bool
	clients map[*http1Client]struct{}
}

// ctxWatches holds the watch of every context that clients watch and that
// is not done yet.
var ctxWatches struct {
	sync.Mutex
	m map[<-chan struct{}]*ctxWatch
}

// watchContext registers c with the watch of ctx, which it makes if need
// be, and returns that watch. A context already done interrupts c at once.
func watchContext(ctx context.Context, c *http1Client) *ctxWatch {
	done := ctx.Done()
	ctxWatches.Lock()
	w := ctxWatches.m[done]
	if w == nil {
		if ctxWatches.m == nil {
			ctxWatches.m = make(map[<-chan struct{}]*ctxWatch)
		}
		w = &ctxWatch{done: done, clients: make(map[*http1Client]struct{})}
		ctxWatches.m[done] = w
		w.stop = context.AfterFunc(ctx, w.fire)
	}
	w.mu.Lock()
	fired := w.fired
	if !fired {
		w.clients[c] = struct{}{}
	}
	w.mu.Unlock()
	ctxWatches.Unlock()
	if fired {
		c.interrupt()
	}
	return w
}

// fire interrupts every client of the watch.
func (w *ctxWatch) fire() {
	ctxWatches.Lock()
	if ctxWatches.m[w.done] == w {
		delete(ctxWatches.m, w.done)
	}
	ctxWatches.Unlock()
	w.mu.Lock()
	w.fired = true
	clients := w.clients
	w.clients = nil
	w.mu.Unlock()
	for c := range clients {
		c.interrupt()
	}
}

// remove ends the registration of c; the last client to leave a context
// that is not done yet takes its watch away.
func (w *ctxWatch) remove(c *http1Client) {
	ctxWatches.Lock()
	defer ctxWatches.Unlock()
	w.mu.Lock()
	delete(w.clients, c)
	empty := len(w.clients) == 0 && !w.fired
	w.mu.Unlock()
	if empty && ctxWatches.m[w.done] == w {
		delete(ctxWatches.m, w.done)
		w.stop()
	}
}
