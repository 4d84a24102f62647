package protocols

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// What the network's errors mean to a load test, the same for every
// protocol over TCP: NetErrorKind maps an error of dialing, of a TLS
// handshake or of reading and writing a connection to its kind, and
// ConnectFailure decides, of a connection that could not be opened,
// whether the request ran out of time or failed to connect. A client
// first decides its protocol's own errors (an HTTP/2 GOAWAY, a WebSocket
// close frame, a frame larger than allowed), then asks NetErrorKind, and
// counts what neither knows as KindOther.
//
// Every function here allocates nothing: a failing request must cost no
// more than a succeeding one (see Outcome.Err).

// NetErrorKind is the kind of err, an error of the network:
//   - KindTimeout when a deadline passed (IsTimeout);
//   - KindConnect when a dial failed, the server refused the connection or
//     could not be reached, or the TLS handshake failed on the server's
//     first record or its certificate;
//   - KindReset when the server reset, aborted or closed the connection,
//     before the reply (io.EOF) or in its middle (io.ErrUnexpectedEOF);
//   - KindNone when err is none of these, for the caller to decide.
//
// The checks go in this order: a dial's error is connect whatever it
// wraps, unless it says a deadline passed.
func NetErrorKind(err error) ErrorKind {
	switch {
	case IsTimeout(err):
		return KindTimeout
	case isDial(err), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return KindConnect
	case ClosedByPeer(err), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNABORTED):
		return KindReset
	case isTLSHandshake(err):
		return KindConnect
	}
	return KindNone
}

// IsTimeout reports whether err says a deadline passed: a connection's
// (os.ErrDeadlineExceeded), a context's (context.DeadlineExceeded), or any
// net.Error that says so, which includes a system call's ETIMEDOUT and
// EAGAIN.
func IsTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	ne, ok := errors.AsType[net.Error](err)
	return ok && ne.Timeout()
}

// ClosedByPeer reports whether err means the server closed or reset the
// connection before any byte of a reply: a request that finds a kept-alive
// connection so may go once more on a new one.
func ClosedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// isDial reports whether err is net.Dialer's failure to connect.
func isDial(err error) bool {
	op, ok := errors.AsType[*net.OpError](err)
	return ok && op.Op == "dial"
}

// isTLSHandshake reports whether err is a TLS handshake's failure on what
// the server sent: a first record that is not TLS, or a certificate that
// does not verify.
func isTLSHandshake(err error) bool {
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return true
	}
	_, ok := errors.AsType[*tls.CertificateVerificationError](err)
	return ok
}

// ConnectFailure is the kind of a failed dial or TLS handshake (or any
// opening of a connection) that had until deadline (zero: no deadline of
// its own) and ran under ctx: a timeout only when a deadline has really
// passed, and otherwise a failure to connect. Local failures count as
// connect too: a client short of ephemeral ports gets EADDRNOTAVAIL, or
// EAGAIN on older kernels, which net.Error even reports as a timeout, and
// SYN retries exhausted before the deadline are ETIMEDOUT.
//
// The deadline of ctx gets special care. The dialer fails at once, without
// a system call, when it finds that deadline passed, but ctx.Err() stays nil
// until the context's timer has run, which on a busy process can take
// milliseconds. A caller that stops on ctx.Err() would count instant
// failures in a tight loop meanwhile, so ConnectFailure waits for ctx to be
// done: the caller then sees the request was cut short by the end of its
// context, not failed by the server.
func ConnectFailure(ctx context.Context, err error, deadline time.Time) ErrorKind {
	now := time.Now()
	if end, ok := ctx.Deadline(); ok && !now.Before(end) {
		awaitDone(ctx)
		return KindTimeout
	}
	if !deadline.IsZero() && !now.Before(deadline) && IsTimeout(err) {
		return KindTimeout
	}
	return KindConnect
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

// The server's close of a connection while a reply was awaited, in words
// clearer in a report than io.EOF and io.ErrUnexpectedEOF.
var (
	ErrClosedBeforeReply = errors.New("the server closed the connection before replying")
	ErrClosedMidReply    = errors.New("the server closed the connection in the middle of the reply")
)

// The same words followed by the io error they stand for, "(EOF)", and
// still that error (errors.Is), as StreamReplyError reports them.
var (
	errClosedBeforeStreamReply = fmt.Errorf("%w (%w)", ErrClosedBeforeReply, io.EOF)
	errClosedMidStreamReply    = fmt.Errorf("%w (%w)", ErrClosedMidReply, io.ErrUnexpectedEOF)
)

// ReplyError is the error to report for err, an exchange that failed while
// its reply was awaited: ErrClosedBeforeReply for io.EOF,
// ErrClosedMidReply for io.ErrUnexpectedEOF, and any other error as it is.
// Only the bare io errors are worded: one wrapped by a reader already says
// more than the words would.
func ReplyError(err error) error {
	switch err {
	case io.EOF:
		return ErrClosedBeforeReply
	case io.ErrUnexpectedEOF:
		return ErrClosedMidReply
	}
	return err
}

// StreamReplyError is ReplyError for a step of a TCP stream, whose reply is
// whatever bytes its framing reads: the words also name the io error, as
// in "the server closed the connection before replying (EOF)".
func StreamReplyError(err error) error {
	switch err {
	case io.EOF:
		return errClosedBeforeStreamReply
	case io.ErrUnexpectedEOF:
		return errClosedMidStreamReply
	}
	return err
}
