//go:build linux

package evloop

import (
	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/sockets"
)

// A ConnProtocol's connections are tagged in the epoll set below the wake
// eventfd: connection c as connTag - c, apart from the slots' (0 and up).
const connTag = loopWakeID - 1

// OpenConn opens a socket to address addr of the target (see Addrs) for
// connection c of a ConnProtocol and watches it, edge-triggered, for
// reading, writing and the server's close: the connect goes on after it
// returns. On failure it returns the system call that failed and its
// errno.
func (e *Engine) OpenConn(c, addr int) (fd int, op string, err error) {
	a := e.cfg.Addrs[addr]
	if fd, op, err = sockets.Open(a, e.cfg.Sources.Socket(a), e.cfg.Nagle); err != nil {
		return -1, op, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(connTag - c)}
	if err := unix.EpollCtl(e.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		_ = unix.Close(fd)
		return -1, "epoll_ctl", err
	}
	return fd, "", nil
}

// Addrs is how many addresses the target has: a connection refused by
// fewer than that many goes to the next (see OpenConn).
func (e *Engine) Addrs() int { return len(e.cfg.Addrs) }

// FirstAddr is the address a new connection tries first: the one that
// answered last (see Answered).
func (e *Engine) FirstAddr() int { return e.cur }

// Answered records that address addr took a connection, which the next
// ones then try first, as the slots' connections do.
func (e *Engine) Answered(addr int) { e.cur = addr }

// ConnectError is the kind and the words of a connection that could not
// be opened at system call op: one this machine had no room for (its
// file descriptors or ports ran out) is the generator's failure, not the
// server's.
func (e *Engine) ConnectError(op string, err error) (protocols.ErrorKind, error) {
	if noRoom(err) {
		return protocols.KindOther, e.cfg.DialErrs.Of(op, err)
	}
	return protocols.KindConnect, e.cfg.DialErrs.Of(op, err)
}

// SelfConnected reports whether socket fd, connected to address addr,
// reached itself: nothing listens on the target's port, which the kernel
// then picked for this end of the connection too.
func (e *Engine) SelfConnected(fd, addr int) bool {
	return sockets.SelfConnectedFD(fd, e.cfg.Addrs[addr])
}

// CloseConn closes a ConnProtocol's socket, which also takes it out of
// the epoll set.
func (e *Engine) CloseConn(fd int) { closeFD(fd) }

// closeFD closes a socket without telling the runtime, which has no part
// in the loop's sockets.
func closeFD(fd int) { _, _, _ = unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0) }

// handleConn hands a connection's event to the protocol that owns it.
func (e *Engine) handleConn(tag int32, events uint32) {
	if e.conns != nil {
		e.conns.ConnEvent(int(connTag-tag), events)
	}
}

// flush has a ConnProtocol write what its connections buffered.
func (e *Engine) flush() {
	if e.conns != nil {
		e.conns.Flush()
	}
}
