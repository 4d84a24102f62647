package cli

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Interrupts turns SIGINT and SIGTERM into the two steps of stopping a run.
// The first cancels ctx: the load stops, servers under test get their stop
// signal and partial results are written (exit 130). The second closes
// kill: servers that are slow to stop, or ignore their stop signal, are
// killed at once instead of being waited for. After that loadgate no longer
// handles the signals, so a third one ends it at once (its servers still die
// with it, see sut.Systems). stop releases the signals.
func Interrupts(parent context.Context) (ctx context.Context, kill <-chan struct{}, stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(parent)
	killc := make(chan struct{})
	done := make(chan struct{})
	go escalate(ch, cancel, killc, done)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel()
		})
	}
	return ctx, killc, stop
}

func escalate(ch chan os.Signal, cancel context.CancelFunc, kill chan struct{}, done chan struct{}) {
	for _, step := range []func(){cancel, func() { close(kill); signal.Stop(ch) }} {
		select {
		case <-ch:
			step()
		case <-done:
			return
		}
	}
}
