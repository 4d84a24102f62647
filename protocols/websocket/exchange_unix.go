//go:build unix

package websocket

import "syscall"

// rawSupported: a Unix socket can be written and read by its descriptor.
const rawSupported = true

func rawWrite(fd uintptr, b []byte) (int, error) { return ignoringEINTR(syscall.Write, int(fd), b) }

func rawRead(fd uintptr, b []byte) (int, error) { return ignoringEINTR(syscall.Read, int(fd), b) }

func ignoringEINTR(f func(int, []byte) (int, error), fd int, b []byte) (int, error) {
	for {
		n, err := f(fd, b)
		if err != syscall.EINTR {
			return n, err
		}
	}
}
