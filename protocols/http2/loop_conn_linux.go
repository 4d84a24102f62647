//go:build linux

package http2

import (
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/sys/unix"

	"github.com/loadgate/loadgate/protocols"
)

// connState is where one of the loop's connections stands.
type connState uint8

const (
	connDead      connState = iota // closed; its number is spare
	connOpening                    // the preface is out, the server's SETTINGS awaited
	connOpen                       // streams come and go
	connGoingAway                  // no new streams: it closes when its last ends
)

// h2Conn is one of the loop's HTTP/2 connections.
type h2Conn struct {
	num    int32 // its number among the loop's, its epoll tag
	group  int   // the slots' group it serves (see h2Loop.current)
	fd     int
	gen    uint32 // counts its sockets: what was read from one is not the next's
	state  connState
	addr   int   // the target's address it goes to (see evloop.Engine.Addrs)
	tried  int   // addresses that refused it (localhost's ::1, then 127.0.0.1)
	opener int32 // the slot whose request opened it, charged the connect time
	dialAt time.Time

	nextID     uint32 // the id of its next stream
	active     int    // streams open
	maxStreams int    // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	sendWindow int64  // the server's window for the connection's bodies
	peerWindow int32  // the server's SETTINGS_INITIAL_WINDOW_SIZE
	peerFrame  int    // the server's SETTINGS_MAX_FRAME_SIZE
	streams    streamTable
	// wait are the slots waiting for a place (from waitHead on); blocked
	// those whose bodies wait for a window.
	wait     []int32
	waitHead int
	blocked  []int32

	out   []byte // frames to write: Flush's, or a writable socket's
	dirty bool   // listed in h2Loop.dirty
	carry []byte // the start of a frame one read left over, for the next

	dec      *statusDecoder
	hdrID    uint32 // the stream of the header block being read
	hdrEnd   bool   // its HEADERS frame ended the stream
	inBlock  bool   // a CONTINUATION must come next
	hdrBlock []byte // a block sent in several frames
	seen     int    // bytes of the server's first frame header checked (see check)
	unacked  int    // DATA received since the last connection WINDOW_UPDATE

	// The bytes no one request owns (the preface, SETTINGS, PING and
	// WINDOW_UPDATE, resets) and those received: charged to the next
	// request that ends on the connection (see h2Loop.leave).
	sentShared, received int64
}

// connOf is the connection of group g, opened for slot i's request when
// the group has none; nil when it cannot be opened, which failed the
// request.
func (l *h2Loop) connOf(g, i int) *h2Conn {
	if n := l.current[g]; n >= 0 {
		return l.conns[n]
	}
	c := l.newConn(g)
	if kind, err, ok := l.dial(c); !ok {
		l.retire(c)
		l.eng.Fail(i, kind, err)
		return nil
	}
	c.opener = int32(i)
	l.current[g] = c.num
	return c
}

// newConn takes a spare connection, or makes one.
func (l *h2Loop) newConn(g int) *h2Conn {
	var c *h2Conn
	if n := len(l.spare); n > 0 {
		c = l.conns[l.spare[n-1]]
		l.spare = l.spare[:n-1]
	} else {
		c = &h2Conn{num: int32(len(l.conns)), dec: newStatusDecoder()}
		l.conns = append(l.conns, c)
	}
	*c = h2Conn{num: c.num, gen: c.gen, group: g, fd: -1, state: connOpening, opener: -1, nextID: 1, maxStreams: initialMaxStreams,
		sendWindow: 65535, peerWindow: 65535, peerFrame: loopMaxFrame,
		streams: c.streams, wait: c.wait[:0], blocked: c.blocked[:0], out: c.out[:0],
		carry: c.carry[:0], dec: c.dec, hdrBlock: c.hdrBlock[:0]}
	c.streams.reset()
	c.dec.reset()
	return c
}

// dial opens c, trying the target's addresses in turn from the one after
// those that refused it, and queues the preface and the client's
// settings; false, with the failure's kind and words, when it could not.
func (l *h2Loop) dial(c *h2Conn) (protocols.ErrorKind, error, bool) {
	if c.tried == 0 {
		c.addr = l.eng.FirstAddr()
	}
	for {
		fd, op, err := l.eng.OpenConn(int(c.num), c.addr)
		if err == nil {
			c.fd, c.state, c.dialAt = fd, connOpening, protocols.Now()
			c.gen++
			break
		}
		kind, werr := l.eng.ConnectError(op, err)
		if kind != protocols.KindConnect || c.tried+1 >= l.eng.Addrs() {
			return kind, werr, false
		}
		l.nextAddr(c)
	}
	l.queuePreface(c)
	return protocols.KindNone, nil, true
}

// queuePreface queues what a connection begins with: the preface, the
// client's SETTINGS and the connection's window.
func (l *h2Loop) queuePreface(c *h2Conn) {
	at := len(c.out)
	c.out = append(c.out, http2.ClientPreface...)
	c.out = frameHeader(c.out, 3*6, frameSettings, 0, 0)
	c.out = appendSetting(c.out, http2.SettingEnablePush, 0)
	c.out = appendSetting(c.out, http2.SettingInitialWindowSize, loopWindow)
	c.out = appendSetting(c.out, http2.SettingMaxHeaderListSize, maxHeaderBytes)
	c.out = appendWindowUpdate(c.out, 0, loopWindow-65535)
	c.sentShared += int64(len(c.out) - at)
	l.markDirty(c)
}

func appendSetting(dst []byte, id http2.SettingID, v uint32) []byte {
	return append(dst, byte(id>>8), byte(id), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendWindowUpdate(dst []byte, id, n uint32) []byte {
	dst = frameHeader(dst, 4, frameWindowUpdate, 0, id)
	return append(dst, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// HTTP/2 error codes this client sends.
const (
	codeProtocol = 0x1
	codeCancel   = 0x8
)

// resetStream queues RST_STREAM for stream id of c.
func (l *h2Loop) resetStream(c *h2Conn, id uint32, code uint32) {
	if c.fd < 0 || id == 0 {
		return
	}
	c.out = frameHeader(c.out, 4, frameRSTStream, 0, id)
	c.out = append(c.out, byte(code>>24), byte(code>>16), byte(code>>8), byte(code))
	c.sentShared += frameHeaderLen + 4
	l.markDirty(c)
}

// frameHeaderLen is the size of a frame's header.
const frameHeaderLen = 9

// write writes what c has buffered, once: the socket's next room is
// reported by epoll (each connection is watched for it, edge-triggered).
func (l *h2Loop) write(c *h2Conn) {
	if len(c.out) == 0 {
		return
	}
	n, err := protocols.RawWrite(uintptr(c.fd), c.out)
	switch {
	case err == unix.EAGAIN:
		return
	case err != nil:
		l.lost(c, "write", err)
		return
	}
	c.out = c.out[:copy(c.out, c.out[n:])]
}

// ConnEvent handles what epoll reported of connection n's socket: what
// the socket says is read from it, not from the events, which may be
// those of a socket this number had before.
func (l *h2Loop) ConnEvent(n int, events uint32) {
	c := l.conns[n]
	if c.fd < 0 {
		return
	}
	if events&unix.EPOLLOUT != 0 {
		l.write(c)
	}
	if events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 && c.fd >= 0 {
		l.read(c)
	}
}

// read reads and handles what c's socket holds, until a read leaves room
// in the buffer: a TCP socket that fills less than it was offered has
// been emptied, and its next bytes will be reported anew.
func (l *h2Loop) read(c *h2Conn) {
	gen := c.gen
	for c.gen == gen {
		k := copy(l.rbuf, c.carry)
		n, err := protocols.RawRead(uintptr(c.fd), l.rbuf[k:])
		switch {
		case err == unix.EAGAIN:
			return
		case err != nil:
			l.lost(c, "read", err)
			return
		case n == 0:
			l.lost(c, "read", nil)
			return
		}
		c.received += int64(n)
		rest, ok := l.frames(c, l.rbuf[:k+n])
		if !ok {
			return
		}
		c.carry = append(c.carry[:0], rest...)
		if k+n < len(l.rbuf) {
			return
		}
	}
}

// lost handles c's socket failing at system call op with err (nil: the
// server closed it).
func (l *h2Loop) lost(c *h2Conn, op string, err error) {
	if c.state == connOpening {
		l.openFailed(c, err)
		return
	}
	if err == nil {
		l.broken(c, protocols.KindReset, errServerClosed)
		return
	}
	kind := protocols.NetErrorKind(err)
	if kind == protocols.KindNone {
		kind = protocols.KindReset
	}
	l.broken(c, kind, l.ioErrs.Of(op, err))
}

// openFailed handles a connection that failed before the server's
// SETTINGS, with err (nil: the server closed it): refused, it goes to the
// target's next address; else the requests waiting for it fail, as
// connections that could not be opened.
func (l *h2Loop) openFailed(c *h2Conn, err error) {
	if err == nil {
		err = unix.ECONNRESET
	}
	if l.eng.SelfConnected(c.fd, c.addr) {
		err = unix.ECONNREFUSED
	}
	if err == unix.ECONNREFUSED && c.tried+1 < l.eng.Addrs() {
		l.eng.CloseConn(c.fd)
		c.fd, c.out, c.sentShared = -1, c.out[:0], 0
		l.nextAddr(c)
		if _, _, ok := l.dial(c); ok {
			return
		}
	}
	kind, werr := l.eng.ConnectError("connect", err)
	l.failAll(c, kind, werr)
}

// nextAddr has c, refused, go to the target's next address.
func (l *h2Loop) nextAddr(c *h2Conn) {
	c.tried++
	c.addr = (c.addr + 1) % l.eng.Addrs()
}

// failAll fails every request on c or waiting for it with kind and err,
// and closes it.
func (l *h2Loop) failAll(c *h2Conn, kind protocols.ErrorKind, err error) {
	l.retire(c)
	l.failStreams(c, kind, err)
	for _, i := range c.wait[c.waitHead:] {
		if s := &l.slots[i]; s.waiting && s.conn == c.num {
			s.waiting, s.conn = false, -1
			l.eng.Fail(int(i), kind, err)
		}
	}
}

// broken handles c failing once open: its streams fail with kind and
// err; the requests waiting for a place on it never reached the server,
// and go to a new connection.
func (l *h2Loop) broken(c *h2Conn, kind protocols.ErrorKind, err error) {
	l.retire(c)
	l.failStreams(c, kind, err)
	l.reissueWaiting(c)
}

// failStreams fails the requests of c's open streams with kind and err.
func (l *h2Loop) failStreams(c *h2Conn, kind protocols.ErrorKind, err error) {
	for _, i := range c.streams.slots() {
		l.leave(c, int(i))
		l.eng.Fail(int(i), kind, err)
	}
}

// goingAway takes c out of its group's use: it takes no new stream, its
// waiting requests go to a new connection, and it closes once its last
// stream ends.
func (l *h2Loop) goingAway(c *h2Conn) {
	c.state = connGoingAway
	if l.current[c.group] == c.num {
		l.current[c.group] = -1
	}
	l.reissueWaiting(c)
	l.drained(c)
}

// reissueWaiting issues anew the requests waiting on c, which takes no
// more streams.
func (l *h2Loop) reissueWaiting(c *h2Conn) {
	wait := c.wait[c.waitHead:]
	c.wait, c.waitHead = c.wait[:0], 0
	for _, i := range wait {
		if s := &l.slots[i]; s.waiting && s.conn == c.num {
			l.Issue(int(i))
		}
	}
}

// drained closes c when it goes away and its last stream has ended.
func (l *h2Loop) drained(c *h2Conn) {
	if c.state == connGoingAway && c.active == 0 {
		l.retire(c)
	}
}

// retire closes c and takes it out of its group's use; its number is
// spare from the next Flush on, once the events of the last poll, which
// may name it, have been handled.
func (l *h2Loop) retire(c *h2Conn) {
	if c.state == connDead {
		return
	}
	if c.fd >= 0 {
		l.eng.CloseConn(c.fd)
	}
	c.fd, c.state = -1, connDead
	c.gen++
	if l.current[c.group] == c.num {
		l.current[c.group] = -1
	}
	l.dying = append(l.dying, c.num)
}
