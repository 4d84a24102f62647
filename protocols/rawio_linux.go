//go:build linux && !race && !386

package protocols

import (
	"syscall"
	"unsafe"
)

// RawSupported: a Linux socket can be written and read by its descriptor.
const RawSupported = true

// RawWrite and RawRead run on non-blocking sockets, from which a system
// call returns at once: the raw form spares the scheduler's bookkeeping
// around a call that might block (entersyscall and exitsyscall), about 1 %
// of a kept-alive request's CPU time. The race detector learns from
// syscall.Read and syscall.Write that bytes written happen before the
// same bytes read, in this process's server of a test too, so a race build
// keeps them (rawio_unix.go), as does linux/386, which has no recvfrom
// system call of its own (it goes through socketcall).
func RawWrite(fd uintptr, b []byte) (int, error) {
	return rawIO(syscall.SYS_WRITE, fd, b)
}

// RawRead reads what the non-blocking socket fd holds into b, or fails with
// EAGAIN at once when it holds nothing; 0 bytes is the peer's close.
func RawRead(fd uintptr, b []byte) (int, error) {
	return rawIO(syscall.SYS_READ, fd, b)
}

// RawPeek copies what the socket holds into b without taking it, or fails
// with EAGAIN at once when it holds nothing; 0 bytes is the server's close.
func RawPeek(fd uintptr, b []byte) (int, error) {
	for {
		n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)),
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		switch e {
		case 0:
			return int(n), nil
		case syscall.EINTR:
			continue
		}
		return 0, e
	}
}

func rawIO(trap, fd uintptr, b []byte) (int, error) {
	for {
		n, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		switch e {
		case 0:
			return int(n), nil
		case syscall.EINTR:
			continue
		}
		return 0, e
	}
}
