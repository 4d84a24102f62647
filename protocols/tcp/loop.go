package tcp

import (
	"fmt"
	"net"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
	"github.com/loadgate/loadgate/protocols/sockets"
	"github.com/loadgate/loadgate/scenarios"
)

// NewLoop makes the event loop of TCP target t, or returns nil and why not:
// the loop connects to the machine's own addresses (see sockets.Local),
// where the workers' dialer follows a name's DNS at each connection.
func NewLoop(t *scenarios.Target) (protocols.Loop, string) {
	switch {
	case t.TCP == nil:
		return nil, "not a TCP target"
	case !evloop.Supported:
		return nil, "no event loop on this system"
	case numbersWorkers(t.TCP.OnConnect) || numbersWorkers(t.TCP.Iteration):
		return nil, "{{worker}} numbers the workers, which run the target"
	}
	host, port, err := net.SplitHostPort(t.TCP.Address)
	if err != nil {
		return nil, err.Error()
	}
	addrs, why := sockets.Local(host, port, net.DefaultResolver.LookupNetIP)
	if addrs == nil {
		return nil, why
	}
	addr := sockets.DialAddr(t.TCP.Address)
	return newTCPLoop(evloop.Config{
		Addrs:      addrs,
		Timeout:    t.TCP.Timeout,
		ErrTimeout: fmt.Errorf("no complete reply within %v (timeout)", t.TCP.Timeout),
		DialErrs:   &sockets.DialErrors{Addr: addr},
	}, loopTarget{
		target: t.TCP,
		steps:  newSteps(t.TCP),
		ioErrs: sockets.DialErrors{Addr: addr, OnConn: true},
	}), ""
}

// loopTarget is what the event loop's TCP needs of the target.
type loopTarget struct {
	target *scenarios.TCPTarget
	*steps
	ioErrs sockets.DialErrors // of reads and writes on an open connection
}

// numbersWorkers reports whether a payload of steps renders {{worker}}:
// the loops' slots are numbered each from 0, not as the phase's workers.
func numbersWorkers(steps []scenarios.TCPStep) bool {
	for i := range steps {
		for _, p := range steps[i].Payload.Parts {
			if p.Kind == scenarios.PartWorker {
				return true
			}
		}
	}
	return false
}
