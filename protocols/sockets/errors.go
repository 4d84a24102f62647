package sockets

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// DialErrors are the errors of failures to open a connection, made the first time
// each happens, so that a run against a dead server reports "dial tcp
// 127.0.0.1:8080: connect: connection refused" as net.Dialer would, without
// allocating per request.
type DialErrors struct {
	Addr DialAddr
	made []dialError
	// OnConn: these are failures of an open connection ("read tcp
	// 127.0.0.1:8080: read: connection reset by peer"), not of a dial.
	OnConn bool
	// Spread: the connections come from the source addresses of
	// local_ips, which the words of running out of ports name.
	Spread bool
}

type dialError struct {
	op    string
	errno syscall.Errno
	err   error
}

// dialErrorsKept bounds the kinds of failure a worker remembers.
const dialErrorsKept = 8

// Of returns the error of the system call op failing with err: the error
// made for its errno, or err itself when it carries none (a timeout).
func (d *DialErrors) Of(op string, err error) error {
	errno, ok := ErrnoOf(err)
	if !ok {
		return err
	}
	for i := range d.made {
		if e := &d.made[i]; e.errno == errno && e.op == op {
			return e.err
		}
	}
	verb := "dial"
	if d.OnConn {
		verb = op
	}
	var made error = &net.OpError{Op: verb, Net: "tcp", Addr: d.Addr, Err: os.NewSyscallError(op, errno)}
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
func (d *DialErrors) hint(op string, errno syscall.Errno) string {
	switch {
	case errno != syscall.EADDRNOTAVAIL || d.OnConn:
		return ""
	case op == "bind":
		return "a source address of local_ips is not one of this machine's: any of 127.0.0.0/8 is, for a loopback target; others must be assigned to an interface"
	case d.Spread:
		return "the ephemeral ports of every source address in local_ips are taken: add addresses to local_ips, or widen net.ipv4.ip_local_port_range"
	}
	return "the ephemeral ports from this machine's address to the target are taken: spread the connections over several source addresses with local_ips " +
		"(for a loopback target, local_ips: 127.0.0.2-127.0.0.41 gives 40 addresses, each with its own ports), or widen net.ipv4.ip_local_port_range"
}

// Worded is err, a failure of net.Dialer, or the error of its errno with
// the words of hint when it has some.
func (d *DialErrors) Worded(err error) error {
	if errno, ok := ErrnoOf(err); ok && d.hint("connect", errno) != "" {
		return d.Of("connect", errno)
	}
	return err
}

// ErrnoOf finds the errno that err wraps, without errors.As, which would
// allocate its target.
func ErrnoOf(err error) (syscall.Errno, bool) {
	for err != nil {
		if errno, ok := err.(syscall.Errno); ok {
			return errno, true
		}
		err = errors.Unwrap(err)
	}
	return 0, false
}

// DialAddr is the address connections are opened to, for their errors.
type DialAddr string

func (DialAddr) Network() string  { return "tcp" }
func (a DialAddr) String() string { return string(a) }
