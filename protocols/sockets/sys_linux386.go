//go:build linux && 386

package sockets

import "syscall"

// On 386 the socket calls go through socketcall, which the syscall
// package wraps.

func sysSocket(family int) (int, error) {
	return syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
}

func sysNoDelay(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
}

func sysConnect(fd int, a *Addr) error { return syscall.Connect(fd, a.sa) }

// ipBindAddressNoPort is IP_BIND_ADDRESS_NO_PORT of linux/in.h.
const ipBindAddressNoPort = 24

func sysBindNoPort(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
}

func sysBind(fd int, a *Addr) error { return syscall.Bind(fd, a.sa) }
