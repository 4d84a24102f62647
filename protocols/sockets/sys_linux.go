//go:build linux && !386

package sockets

import (
	"syscall"
	"unsafe"
)

// The socket calls of Open are raw: none of them blocks on a
// non-blocking socket, so the scheduler's bookkeeping around a call that
// might (entersyscall and exitsyscall) is spared.

func sysSocket(family int) (int, error) {
	r, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, uintptr(family),
		syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

func sysNoDelay(fd int) error {
	one := int32(1)
	_, _, e := syscall.RawSyscall6(syscall.SYS_SETSOCKOPT, uintptr(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY,
		uintptr(unsafe.Pointer(&one)), 4, 0)
	if e != 0 {
		return e
	}
	return nil
}

func sysConnect(fd int, a *Addr) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_CONNECT, uintptr(fd), uintptr(a.raw), a.rawLen)
	if e != 0 {
		return e
	}
	return nil
}

// ipBindAddressNoPort is IP_BIND_ADDRESS_NO_PORT of linux/in.h (4.2 and
// later), which the syscall package does not name.
const ipBindAddressNoPort = 24

func sysBindNoPort(fd int) error {
	one := int32(1)
	_, _, e := syscall.RawSyscall6(syscall.SYS_SETSOCKOPT, uintptr(fd), syscall.IPPROTO_IP, ipBindAddressNoPort,
		uintptr(unsafe.Pointer(&one)), 4, 0)
	if e != 0 {
		return e
	}
	return nil
}

func sysBind(fd int, a *Addr) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_BIND, uintptr(fd), uintptr(a.raw), a.rawLen)
	if e != 0 {
		return e
	}
	return nil
}
