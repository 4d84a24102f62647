//go:build unix && (!linux || race || 386)

package protocols

import "syscall"

// RawSupported: a Unix socket can be written and read by its descriptor.
const RawSupported = true

// RawWrite writes b to the non-blocking socket fd.
func RawWrite(fd uintptr, b []byte) (int, error) { return ignoringEINTR(syscall.Write, int(fd), b) }

// RawRead reads what the non-blocking socket fd holds into b.
func RawRead(fd uintptr, b []byte) (int, error) { return ignoringEINTR(syscall.Read, int(fd), b) }

// RawPeek: the socket is non-blocking, so MSG_PEEK alone does not wait.
func RawPeek(fd uintptr, b []byte) (int, error) {
	for {
		n, _, err := syscall.Recvfrom(int(fd), b, syscall.MSG_PEEK)
		if err != syscall.EINTR {
			return max(n, 0), err
		}
	}
}

func ignoringEINTR(f func(int, []byte) (int, error), fd int, b []byte) (int, error) {
	for {
		n, err := f(fd, b)
		if err != syscall.EINTR {
			return max(n, 0), err
		}
	}
}
