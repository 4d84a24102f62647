package http1

import (
	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// writeRequest writes r from byte off on to the non-blocking socket fd,
// once: the rest of its wire and its body apart in one writev, so that a
// large body costs the event loop no copy and no extra system call.
func writeRequest(fd uintptr, r *http1Request, off int) (int, error) {
	switch {
	case off >= len(r.wire):
		return protocols.RawWrite(fd, r.body[off-len(r.wire):])
	case r.body == nil:
		return protocols.RawWrite(fd, r.wire[off:])
	}
	iov := [2][]byte{r.wire[off:], r.body}
	for {
		n, err := unix.Writev(int(fd), iov[:])
		if err != unix.EINTR {
			return max(n, 0), err
		}
	}
}
