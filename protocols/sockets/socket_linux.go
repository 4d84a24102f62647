package sockets

import (
	"net/netip"
	"strconv"
	"syscall"
	"unsafe"
)

// Addr is an address Open connects to.
type Addr struct {
	family int
	sa     syscall.Sockaddr
	// raw and rawLen are sa in the kernel's layout, made once, for a
	// connect without syscall.Connect's conversion.
	raw    unsafe.Pointer
	rawLen uintptr
}

// NewAddr returns the address of host and port when host is an IP
// address, and nil for a name, left to net.Dialer, which resolves it at
// every dial and tries each of its addresses.
func NewAddr(host, port string) *Addr {
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Zone() != "" {
		return nil
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil
	}
	if ip.Is4() || ip.Is4In6() {
		raw := &syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: ip.Unmap().As4()}
		bigEndianPort(&raw.Port, p)
		return &Addr{syscall.AF_INET, &syscall.SockaddrInet4{Port: int(p), Addr: ip.Unmap().As4()},
			unsafe.Pointer(raw), syscall.SizeofSockaddrInet4}
	}
	raw := &syscall.RawSockaddrInet6{Family: syscall.AF_INET6, Addr: ip.As16()}
	bigEndianPort(&raw.Port, p)
	return &Addr{syscall.AF_INET6, &syscall.SockaddrInet6{Port: int(p), Addr: ip.As16()},
		unsafe.Pointer(raw), syscall.SizeofSockaddrInet6}
}

// IsV6 reports whether a is an IPv6 address.
func (a *Addr) IsV6() bool { return a.family == syscall.AF_INET6 }

// bigEndianPort stores port in network byte order, as a sockaddr has it.
func bigEndianPort(dst *uint16, port uint64) {
	b := (*[2]byte)(unsafe.Pointer(dst))
	b[0], b[1] = byte(port>>8), byte(port)
}

// Open opens a non-blocking TCP socket and starts connecting it to a,
// from source address src unless src is nil (see Sources). The handshake
// goes on after it returns. On failure it returns the system call that
// failed and its errno, which costs no allocation. nagle leaves
// Nagle's algorithm on, for connections whose requests each fit one
// segment (see oneSegment): it then never holds one back, and the socket
// costs a system call less.
func Open(a, src *Addr, nagle bool) (fd int, op string, err error) {
	if fd, err = sysSocket(a.family); err != nil {
		return -1, "socket", err
	}
	if src != nil {
		if op, err := bindSource(fd, a, src); err != nil {
			_ = syscall.Close(fd)
			return -1, op, err
		}
	}
	// As net does: a request that takes several writes must not wait for
	// the acknowledgement of the first.
	if !nagle {
		if err := sysNoDelay(fd); err != nil {
			_ = syscall.Close(fd)
			return -1, "setsockopt", err
		}
	}
	switch err := sysConnect(fd, a); err {
	case nil, syscall.EINPROGRESS, syscall.EINTR: // after EINTR the handshake goes on too
		return fd, "", nil
	default:
		_ = syscall.Close(fd)
		return -1, "connect", err
	}
}

// bindSource binds socket fd, to be connected to a, to source address src
// with no port: IP_BIND_ADDRESS_NO_PORT leaves the port to connect, which
// picks one free for the whole 4-tuple, so each source address has the
// ephemeral range to itself towards every server address, where a bind
// with port 0 would take one unique to the source address alone.
func bindSource(fd int, a, src *Addr) (string, error) {
	if src.family != a.family {
		return "bind", syscall.EAFNOSUPPORT
	}
	if err := sysBindNoPort(fd); err != nil {
		return "setsockopt", err
	}
	if err := sysBind(fd, src); err != nil {
		return "bind", err
	}
	return "", nil
}

// SelfConnected reports whether the socket's own address is a: with
// nothing listening on a port of the ephemeral range, the kernel may pick
// that very port for the connecting end, which then reaches itself.
func SelfConnected(rc syscall.RawConn, a *Addr) bool {
	self := false
	_ = rc.Control(func(fd uintptr) { self = SelfConnectedFD(int(fd), a) })
	return self
}

// SelfConnectedFD is SelfConnected of a socket the caller drives itself.
func SelfConnectedFD(fd int, a *Addr) bool {
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return false
	}
	switch l := sa.(type) {
	case *syscall.SockaddrInet4:
		r, ok := a.sa.(*syscall.SockaddrInet4)
		return ok && l.Port == r.Port && l.Addr == r.Addr
	case *syscall.SockaddrInet6:
		r, ok := a.sa.(*syscall.SockaddrInet6)
		return ok && l.Port == r.Port && l.Addr == r.Addr
	}
	return false
}
