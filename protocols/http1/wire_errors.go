package http1

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/loadgate/loadgate/protocols"
)

// Errors of a server that closed the connection, clearer in a report than
// io.EOF and io.ErrUnexpectedEOF.
var (
	errClosedBeforeReply = errors.New("the server closed the connection before replying")
	errClosedMidReply    = errors.New("the server closed the connection in the middle of the reply")
)

// peerError is the error to report for err, a failed exchange.
func peerError(err error) error {
	switch err {
	case io.EOF:
		return errClosedBeforeReply
	case io.ErrUnexpectedEOF:
		return errClosedMidReply
	}
	return err
}

// closedByPeer reports whether err means the server closed or reset the
// connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// connectFailure is the kind of a failed dial or TLS handshake: a timeout
// only when a deadline has really passed, and otherwise a failure to
// connect. Local failures count as connect too: a client short of ephemeral
// ports gets EADDRNOTAVAIL, or EAGAIN on older kernels, which net.Error
// even reports as a timeout.
//
// The deadline of ctx gets special care. The dialer fails at once, without
// a system call, when it finds that deadline passed, but ctx.Err() stays nil
// until the context's timer has run, which on a busy process can take
// milliseconds. A caller that stops on ctx.Err() would count instant
// failures in a tight loop meanwhile, so connectFailure waits for ctx to be
// done: the caller then sees the request was cut short by the end of its
// context, not failed by the server.
func connectFailure(ctx context.Context, err error, deadline time.Time) protocols.ErrorKind {
	now := time.Now()
	if end, ok := ctx.Deadline(); ok && !now.Before(end) {
		awaitDone(ctx)
		return protocols.KindTimeout
	}
	if !deadline.IsZero() && !now.Before(deadline) && isTimeout(err) {
		return protocols.KindTimeout
	}
	return protocols.KindConnect
}

// awaitDone waits until ctx, whose deadline has passed, is done: a moment,
// the time it takes the runtime to run the context's timer. The bound only
// guards against a context that never closes Done.
func awaitDone(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// isTimeout reports whether err says a deadline passed.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// dialErrors are the errors of dialSocket's failures, made the first time
// each happens, so that a run against a dead server reports "dial tcp
// 127.0.0.1:8080: connect: connection refused" as net.Dialer would, without
// allocating per request.
type dialErrors struct {
	addr dialAddr
	made []dialError
	// onConn: these are failures of an open connection ("read tcp
	// 127.0.0.1:8080: read: connection reset by peer"), not of a dial.
	onConn bool
}

type dialError struct {
	op    string
	errno syscall.Errno
	err   error
}

// dialErrorsKept bounds the kinds of failure a worker remembers.
const dialErrorsKept = 8

// of returns the error of the system call op failing with err: the error
// made for its errno, or err itself when it carries none (a timeout).
func (d *dialErrors) of(op string, err error) error {
	errno, ok := errnoOf(err)
	if !ok {
		return err
	}
	for i := range d.made {
		if e := &d.made[i]; e.errno == errno && e.op == op {
			return e.err
		}
	}
	verb := "dial"
	if d.onConn {
		verb = op
	}
	made := &net.OpError{Op: verb, Net: "tcp", Addr: d.addr, Err: os.NewSyscallError(op, errno)}
	if len(d.made) < dialErrorsKept {
		d.made = append(d.made, dialError{op, errno, made})
	}
	return made
}

// errnoOf finds the errno that err wraps, without errors.As, which would
// allocate its target.
func errnoOf(err error) (syscall.Errno, bool) {
	for err != nil {
		if errno, ok := err.(syscall.Errno); ok {
			return errno, true
		}
		err = errors.Unwrap(err)
	}
	return 0, false
}

// dialAddr is the address dialSocket connects to, for its errors.
type dialAddr string

func (dialAddr) Network() string  { return "tcp" }
func (a dialAddr) String() string { return string(a) }
