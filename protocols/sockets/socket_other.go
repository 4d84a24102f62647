//go:build !linux

package sockets

import (
	"errors"
	"syscall"
)

// Addr is an address Open connects to; outside Linux every
// connection is net.Dialer's.
type Addr struct{}

func NewAddr(host, port string) *Addr { return nil }

func (*Addr) IsV6() bool { return false }

func Open(*Addr, *Addr, bool) (int, string, error) {
	return -1, "socket", errors.ErrUnsupported
}

func SelfConnected(syscall.RawConn, *Addr) bool { return false }
