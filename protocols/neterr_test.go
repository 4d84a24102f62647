package protocols

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"
)

// The errors as the network returns them: wrapped by net.Dialer and
// net.Conn (OpError around SyscallError), bare from a raw socket's system
// call, wrapped once more by net/http (url.Error).
func opErr(op, call string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(call, errno)}
}

func byHTTP(err error) error { return &url.Error{Op: "Get", URL: "http://127.0.0.1:8080/", Err: err} }

// netErrorCases are the rows of TestNetErrorKind, one per case the mapping
// decides, and what it leaves to the protocols.
var netErrorCases = []struct {
	name string
	err  error
	want ErrorKind
}{
	// A deadline passed, whichever clock said so.
	{"a connection's deadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, KindTimeout},
	{"a context's deadline, through net/http", byHTTP(context.DeadlineExceeded), KindTimeout},
	{"a dial's deadline: timeout before dial", &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}, KindTimeout},
	{"the kernel's ETIMEDOUT on a read (retransmissions gave up)", opErr("read", "read", syscall.ETIMEDOUT), KindTimeout},

	// The connection could not be made.
	{"refused", opErr("dial", "connect", syscall.ECONNREFUSED), KindConnect},
	{"refused, through net/http", byHTTP(opErr("dial", "connect", syscall.ECONNREFUSED)), KindConnect},
	{"a dial's error is connect whatever it wraps, even a reset", opErr("dial", "connect", syscall.ECONNRESET), KindConnect},
	{"refused, a raw socket's errno", syscall.ECONNREFUSED, KindConnect},
	{"no route to the host", opErr("write", "write", syscall.EHOSTUNREACH), KindConnect},
	{"no route to the network", syscall.ENETUNREACH, KindConnect},
	{"a first record that is not TLS", byHTTP(tls.RecordHeaderError{Msg: "tls: first record does not look like a TLS handshake"}), KindConnect},
	{"a certificate that does not verify", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, KindConnect},

	// The server ended the connection.
	{"closed before the reply", io.EOF, KindReset},
	{"closed in the middle of the reply", io.ErrUnexpectedEOF, KindReset},
	{"closed, wrapped by a reader", fmt.Errorf("reading the status line: %w", io.EOF), KindReset},
	{"reset on a read", opErr("read", "read", syscall.ECONNRESET), KindReset},
	{"reset, a raw socket's errno", syscall.ECONNRESET, KindReset},
	{"a write after the server closed", opErr("write", "write", syscall.EPIPE), KindReset},
	{"aborted by the kernel", opErr("read", "read", syscall.ECONNABORTED), KindReset},

	// Not the network's to say: each protocol decides, or counts other.
	{"a TLS alert: its type is unexported, only HTTP/2 goes by its words", &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}, KindNone},
	{"a connection closed by this end", &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed}, KindNone},
	{"a cancelled context", byHTTP(context.Canceled), KindNone},
	{"a parser's error", errors.New(`malformed HTTP status code "OK"`), KindNone},
	{"a local error with no errno", opErr("read", "read", syscall.EBADF), KindNone},
}

func TestNetErrorKind(t *testing.T) {
	for _, tc := range netErrorCases {
		if got := NetErrorKind(tc.err); got != tc.want {
			t.Errorf("%s (%v): %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// Classifying a failure allocates nothing, so a failing request costs no
// more than a succeeding one.
func TestNetErrorKindAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates behind the code it checks")
	}
	allocs := testing.AllocsPerRun(10, func() {
		for _, tc := range netErrorCases {
			NetErrorKind(tc.err)
			ClosedByPeer(tc.err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass over the cases, want 0", allocs)
	}
}

// ClosedByPeer is what lets a request go once more on a new connection:
// only a close before any byte of the reply.
func TestClosedByPeer(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"closed before the reply", io.EOF, true},
		{"reset", opErr("read", "read", syscall.ECONNRESET), true},
		{"a write after the server closed", opErr("write", "write", syscall.EPIPE), true},
		{"closed in the middle of a reply: part of it arrived", io.ErrUnexpectedEOF, false},
		{"aborted by this end's kernel, not the server", syscall.ECONNABORTED, false},
		{"a timeout", os.ErrDeadlineExceeded, false},
	} {
		if got := ClosedByPeer(tc.err); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// pastContext is a context whose deadline has passed while its timer has
// not run yet: Done is closed (so that waiting for it ends), Err still nil.
type pastContext struct{ context.Context }

func (pastContext) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }
func (pastContext) Done() <-chan struct{}       { return closed }

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// A failed dial is a timeout only when a deadline has passed; local errors
// such as a lack of ephemeral ports are failures to connect.
func TestConnectFailure(t *testing.T) {
	dialErr := func(errno syscall.Errno) error { return opErr("dial", "connect", errno) }
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
	later, past := time.Now().Add(time.Hour), time.Now().Add(-time.Millisecond)
	bg := context.Background()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		deadline time.Time
		want     ErrorKind
	}{
		{"no local address", bg, dialErr(syscall.EADDRNOTAVAIL), later, KindConnect},
		{"no local port, older kernels: EAGAIN says timeout, the deadline has not passed", bg, dialErr(syscall.EAGAIN), later, KindConnect},
		{"no local address, no deadline", bg, dialErr(syscall.EADDRNOTAVAIL), time.Time{}, KindConnect},
		{"refused", bg, dialErr(syscall.ECONNREFUSED), later, KindConnect},
		{"SYN retries exhausted before the deadline", bg, dialErr(syscall.ETIMEDOUT), later, KindConnect},
		{"SYN retries exhausted, no deadline", bg, dialErr(syscall.ETIMEDOUT), time.Time{}, KindConnect},
		{"refused at the deadline: the server answered", bg, dialErr(syscall.ECONNREFUSED), past, KindConnect},
		{"deadline passed", bg, timeout, past, KindTimeout},
		{"deadline passed, context error", bg, &net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}, past, KindTimeout},
		{"the context's deadline passed before its timer ran: whatever the error", pastContext{bg}, dialErr(syscall.ECONNREFUSED), later, KindTimeout},
		{"a cancelled context is no deadline", func() context.Context {
			ctx, cancel := context.WithCancel(bg)
			cancel()
			return ctx
		}(), &net.OpError{Op: "dial", Net: "tcp", Err: context.Canceled}, later, KindConnect},
	} {
		if got := ConnectFailure(tc.ctx, tc.err, tc.deadline); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The server's close is worded; the words of a TCP step also name the io
// error, and stay it.
func TestReplyError(t *testing.T) {
	other := opErr("read", "read", syscall.ECONNRESET)
	wrapped := fmt.Errorf("chunk size: %w", io.ErrUnexpectedEOF)
	for _, tc := range []struct {
		name       string
		err        error
		reply      string // ReplyError's message
		stream     string // StreamReplyError's message
		streamIsIO bool   // StreamReplyError's error is still err
	}{
		{"closed before the reply", io.EOF,
			"the server closed the connection before replying",
			"the server closed the connection before replying (EOF)", true},
		{"closed in the middle of the reply", io.ErrUnexpectedEOF,
			"the server closed the connection in the middle of the reply",
			"the server closed the connection in the middle of the reply (unexpected EOF)", true},
		// A reader's own wrapping says more than the words: kept.
		{"a wrapped io error", wrapped, wrapped.Error(), wrapped.Error(), true},
		{"another error", other, other.Error(), other.Error(), true},
	} {
		if got := ReplyError(tc.err).Error(); got != tc.reply {
			t.Errorf("%s: ReplyError %q, want %q", tc.name, got, tc.reply)
		}
		got := StreamReplyError(tc.err)
		if got.Error() != tc.stream {
			t.Errorf("%s: StreamReplyError %q, want %q", tc.name, got, tc.stream)
		}
		if errors.Is(got, tc.err) != tc.streamIsIO {
			t.Errorf("%s: StreamReplyError is %v: %v, want %v", tc.name, tc.err, !tc.streamIsIO, tc.streamIsIO)
		}
	}
	if !errors.Is(StreamReplyError(io.EOF), ErrClosedBeforeReply) || !errors.Is(StreamReplyError(io.ErrUnexpectedEOF), ErrClosedMidReply) {
		t.Error("a TCP step's words are not the shared ones")
	}
}
