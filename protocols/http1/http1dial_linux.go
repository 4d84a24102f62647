package http1

import (
	"net/netip"
	"strconv"
	"syscall"
)

// socketAddr is an address dialSocket connects to.
type socketAddr struct {
	family int
	sa     syscall.Sockaddr
}

// newSocketAddr returns the address of host and port when host is an IP
// address, and nil for a name, left to net.Dialer, which resolves it at
// every dial and tries each of its addresses.
func newSocketAddr(host, port string) *socketAddr {
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" {
		return nil
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil
	}
	if ip.Is4() || ip.Is4In6() {
		return &socketAddr{syscall.AF_INET, &syscall.SockaddrInet4{Port: int(p), Addr: ip.Unmap().As4()}}
	}
	return &socketAddr{syscall.AF_INET6, &syscall.SockaddrInet6{Port: int(p), Addr: ip.As16()}}
}

// openSocket opens a non-blocking TCP socket and starts connecting it to a.
// The handshake goes on after it returns. On failure it returns the system
// call that failed and its errno, which costs no allocation. nagle leaves
// Nagle's algorithm on, for connections whose requests each fit one
// segment (see oneSegment): it then never holds one back, and the socket
// costs a system call less.
func openSocket(a *socketAddr, nagle bool) (fd int, op string, err error) {
	fd, err = syscall.Socket(a.family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if err != nil {
		return -1, "socket", err
	}
	// As net does: a request that takes several writes must not wait for
	// the acknowledgement of the first.
	if !nagle {
		if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
			_ = syscall.Close(fd)
			return -1, "setsockopt", err
		}
	}
	switch err := syscall.Connect(fd, a.sa); err {
	case nil, syscall.EINPROGRESS, syscall.EINTR: // after EINTR the handshake goes on too
		return fd, "", nil
	default:
		_ = syscall.Close(fd)
		return -1, "connect", err
	}
}

// selfConnected reports whether the socket's own address is a: with
// nothing listening on a port of the ephemeral range, the kernel may pick
// that very port for the connecting end, which then reaches itself.
func selfConnected(rc syscall.RawConn, a *socketAddr) bool {
	self := false
	_ = rc.Control(func(fd uintptr) {
		sa, err := syscall.Getsockname(int(fd))
		if err != nil {
			return
		}
		switch l := sa.(type) {
		case *syscall.SockaddrInet4:
			r, ok := a.sa.(*syscall.SockaddrInet4)
			self = ok && l.Port == r.Port && l.Addr == r.Addr
		case *syscall.SockaddrInet6:
			r, ok := a.sa.(*syscall.SockaddrInet6)
			self = ok && l.Port == r.Port && l.Addr == r.Addr
		}
	})
	return self
}
