package runner

import (
	"fmt"

	"github.com/loadgate/loadgate/protocols"
)

// The clients of a phase: made as its workers need them (all at once for
// the closed model, one by one as the open model's schedule falls behind),
// closed together at its end. The first error, a client that could not be
// made or an event loop that failed, fails the phase.

// addClient makes one more worker client; the phase closes them all at its end.
func (pr *phaseRun) addClient() (protocols.Client, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	cl, err := pr.newClient(pr.target, pr.spawned)
	if err == nil && pr.flow {
		if it, ok := cl.(protocols.Iterator); ok {
			it.Bind(pr.feeds)
		} else {
			_ = cl.Close()
			err = fmt.Errorf("target %q: its client cannot run a flow", pr.target.Name)
		}
	}
	if err != nil {
		err = fmt.Errorf("worker %d: %w", pr.spawned, err)
		if pr.err == nil {
			pr.err = err
		}
		return nil, err
	}
	pr.spawned++
	pr.clients = append(pr.clients, cl)
	return cl, nil
}

// setErr keeps the first error that stopped the phase's load.
func (pr *phaseRun) setErr(err error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.err == nil {
		pr.err = err
	}
}

// clientErr is the first error that stopped the phase's load, if any.
func (pr *phaseRun) clientErr() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.err
}

// closeClients closes every client the phase made, at its end.
func (pr *phaseRun) closeClients() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for _, cl := range pr.clients {
		_ = cl.Close()
	}
}
