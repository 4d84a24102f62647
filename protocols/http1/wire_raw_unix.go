//go:build unix && (!linux || race)

package http1

import "syscall"

// rawSupported: a Unix socket can be written and read by its descriptor.
const rawSupported = true

func rawWrite(fd uintptr, b []byte) (int, error) { return ignoringEINTR(syscall.Write, int(fd), b) }

func rawRead(fd uintptr, b []byte) (int, error) { return ignoringEINTR(syscall.Read, int(fd), b) }

// rawPeek: the socket is non-blocking, so MSG_PEEK alone does not wait.
func rawPeek(fd uintptr, b []byte) (int, error) {
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
