package evloop

import (
	"time"

	"github.com/loadgate/loadgate/protocols/sockets"
)

// Protocol is what is said on an engine's connections. The engine calls
// it on its own goroutine, never concurrently; slots are numbered from 0.
type Protocol interface {
	// Issue sends slot i's request, whose times the engine has set: it
	// opens a connection with Dial when the slot has none, writes, and
	// watches the socket (Watch). The request ends, at once or on a later
	// event, in exactly one Finish or Fail.
	Issue(i int)
	// Event handles what epoll reported of slot i's socket (unix.EPOLL*).
	Event(i int, events uint32)
	// Closed forgets what slot i's connection had said, which the engine
	// has closed.
	Closed(i int)
	// Ended lets go of what slot i held for its request, which has been
	// recorded: the slot is free for the next.
	Ended(i int)
	// Grow makes room for slots up to n, the engine's count of them.
	Grow(n int)
}

// Config is what the engine needs to know of a target.
type Config struct {
	// Addrs are the target's addresses: one, or those of its name; the
	// engine connects to the one that answered last, and to the next when
	// it refuses.
	Addrs []*sockets.Addr
	// Sources are the source addresses of local_ips, nil without.
	Sources *sockets.Sources
	// Nagle keeps Nagle's algorithm on the sockets (see sockets.Open).
	Nagle bool
	// Timeout bounds a request, from when it was sent; 0: none.
	// ErrTimeout is the error of one that ran out of it.
	Timeout    time.Duration
	ErrTimeout error
	// DialErrs words the failures to open a connection.
	DialErrs *sockets.DialErrors
}

// Grow returns a protocol's slots with room for the engine's n (see
// Protocol.Grow), what they held kept: the open model makes its slots
// one at a time, so room is made for twice as many at once.
func Grow[S any](slots []S, n int) []S {
	if n > cap(slots) {
		slots = append(make([]S, 0, max(n, 2*cap(slots))), slots...)
	}
	return slots[:n]
}

// ConnProtocol is a Protocol that carries many slots' requests on each of
// its connections (HTTP/2's streams): the connections are its own, not
// the slots', which then have no socket (Slot.FD stays -1). The engine
// opens them for it (OpenConn), reports their events to ConnEvent, and
// calls Flush before each wait, so that what the requests of one round
// wrote to a connection leaves in one write. Closed, for a slot, then
// means that the engine gave its request up (a timeout, the phase's end):
// the protocol cancels the request on its connection.
type ConnProtocol interface {
	Protocol
	// ConnEvent handles what epoll reported of connection c's socket.
	ConnEvent(c int, events uint32)
	// Flush writes what the connections have buffered.
	Flush()
}

// Waker is a Protocol with work that goroutines of its own finish, off the
// loop (a TLS handshake, which crypto/tls only makes blocking): each calls
// Engine.Wake when it is done, and the engine then calls Woken on its own
// goroutine, at its next round, for the protocol to take the work in.
type Waker interface {
	Protocol
	Woken()
}
