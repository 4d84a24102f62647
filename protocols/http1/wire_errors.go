package http1

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/loadgate/loadgate/protocols"
)

// classify maps an error of an exchange, the lean client's, the event
// loop's or net/http's, to the error kinds of SPEC §3: the network's
// errors as protocols.NetErrorKind says, then what only HTTP knows, of
// this package's parser or in net/http's words (its errors of a malformed
// response are unexported).
func classify(err error) protocols.ErrorKind {
	if k := protocols.NetErrorKind(err); k != protocols.KindNone {
		return k
	}
	if errors.Is(err, errNotHTTP) {
		return protocols.KindProtocol
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "invalid"), strings.Contains(msg, "bad "):
		return protocols.KindProtocol
	case strings.Contains(msg, "server closed"), strings.Contains(msg, "connection reset"):
		return protocols.KindReset
	}
	return protocols.KindOther
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
	// spread: the connections come from the source addresses of
	// local_ips, which the words of running out of ports name.
	spread bool
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
	var made error = &net.OpError{Op: verb, Net: "tcp", Addr: d.addr, Err: os.NewSyscallError(op, errno)}
	if hint := d.hint(op, errno); hint != "" {
		made = fmt.Errorf("%w (%s)", made, hint)
	}
	if len(d.made) < dialErrorsKept {
		d.made = append(d.made, dialError{op, errno, made})
	}
	return made
}

// hint says what to do about a failure whose errno alone would not tell:
// EADDRNOTAVAIL from connect is this machine out of ephemeral ports
// towards the target, and from bind a source address it does not have.
func (d *dialErrors) hint(op string, errno syscall.Errno) string {
	switch {
	case errno != syscall.EADDRNOTAVAIL || d.onConn:
		return ""
	case op == "bind":
		return "a source address of local_ips is not one of this machine's: any of 127.0.0.0/8 is, for a loopback target; others must be assigned to an interface"
	case d.spread:
		return "the ephemeral ports of every source address in local_ips are taken: add addresses to local_ips, or widen net.ipv4.ip_local_port_range"
	}
	return "the ephemeral ports from this machine's address to the target are taken: spread the connections over several source addresses with local_ips " +
		"(for a loopback target, local_ips: 127.0.0.2-127.0.0.41 gives 40 addresses, each with its own ports), or widen net.ipv4.ip_local_port_range"
}

// worded is err, a failure of net.Dialer, or the error of its errno with
// the words of hint when it has some.
func (d *dialErrors) worded(err error) error {
	if errno, ok := errnoOf(err); ok && d.hint("connect", errno) != "" {
		return d.of("connect", errno)
	}
	return err
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

// responseKind maps a failed exchange to its error kind.
func responseKind(err error) protocols.ErrorKind {
	var he http1Error
	switch {
	case errors.Is(err, errBodyTooLarge):
		return protocols.KindLength
	case errors.As(err, &he):
		return protocols.KindProtocol
	case errors.Is(err, io.ErrNoProgress):
		return protocols.KindOther
	}
	return classify(err)
}
