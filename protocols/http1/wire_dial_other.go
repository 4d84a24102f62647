//go:build !linux

package http1

import (
	"errors"
	"syscall"
)

// socketAddr is an address dialSocket connects to; outside Linux every
// connection is net.Dialer's.
type socketAddr struct{}

func newSocketAddr(host, port string) *socketAddr { return nil }

func (*socketAddr) isV6() bool { return false }

func openSocket(*socketAddr, *socketAddr, bool) (int, string, error) {
	return -1, "socket", errors.ErrUnsupported
}

func selfConnected(syscall.RawConn, *socketAddr) bool { return false }
