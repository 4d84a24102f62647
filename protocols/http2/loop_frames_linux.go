//go:build linux

package http2

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/net/http2"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// The frames the server sends, parsed from the bytes a read brought.

// frames handles the whole frames at the start of b and returns the rest,
// the start of the next frame; false when the connection failed, or went
// to another address, meanwhile.
func (l *h2Loop) frames(c *h2Conn, b []byte) ([]byte, bool) {
	if c.seen < 4 && !l.check(c, b) {
		return nil, false
	}
	gen := c.gen
	for len(b) >= frameHeaderLen {
		n := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		if n > loopMaxFrame {
			l.protocolError(c, errFrameSize)
			return nil, false
		}
		if len(b) < frameHeaderLen+n {
			break
		}
		typ, flags := b[3], b[4]
		id := binary.BigEndian.Uint32(b[5:9]) & maxStreamID
		l.frame(c, typ, flags, id, b[frameHeaderLen:frameHeaderLen+n])
		if c.gen != gen {
			return nil, false
		}
		b = b[frameHeaderLen+n:]
	}
	return b, true
}

// check reads the first bytes of the server's first frame, which must be
// SETTINGS: a server speaking HTTP/1.x would otherwise be read as a frame
// of some megabytes, and fail with words about frame sizes.
func (l *h2Loop) check(c *h2Conn, b []byte) bool {
	for _, x := range b {
		switch {
		case c.seen == 0 && x == 'H':
			l.refuse(c, l.errH1)
			return false
		case c.seen == 3 && x != frameSettings:
			l.refuse(c, l.errNoH2)
			return false
		}
		if c.seen++; c.seen == 4 {
			break
		}
	}
	return true
}

// refuse fails c, whose server does not speak HTTP/2, or reached itself.
func (l *h2Loop) refuse(c *h2Conn, err error) {
	if l.eng.SelfConnected(c.fd, c.addr) {
		l.openFailed(c, nil)
		return
	}
	l.failAll(c, protocols.KindProtocol, err)
}

// protocolError ends c, whose server broke the protocol: GOAWAY tells it
// why, and every stream fails with err.
func (l *h2Loop) protocolError(c *h2Conn, err error) {
	c.out = frameHeader(c.out, 8, frameGoAway, 0, 0)
	c.out = append(c.out, 0, 0, 0, 0, 0, 0, 0, codeProtocol)
	l.write(c)
	if c.state == connOpening {
		l.failAll(c, protocols.KindProtocol, err)
		return
	}
	l.broken(c, protocols.KindProtocol, err)
}

// frame handles one frame of stream id with its payload p.
func (l *h2Loop) frame(c *h2Conn, typ, flags byte, id uint32, p []byte) {
	if c.inBlock && typ != frameContinuation {
		l.protocolError(c, errContinuation)
		return
	}
	if c.state == connOpening && typ != frameSettings {
		l.refuse(c, l.errNoH2)
		return
	}
	switch typ {
	case frameData:
		l.data(c, flags, id, p)
	case frameHeaders:
		l.headers(c, flags, id, p)
	case frameContinuation:
		l.continuation(c, flags, id, p)
	case frameRSTStream:
		if len(p) != 4 {
			l.protocolError(c, errBadFrame)
			return
		}
		if i, ok := c.streams.get(id); ok {
			l.failStream(c, int(i), protocols.KindReset, resetError(binary.BigEndian.Uint32(p)), false)
		}
	case frameSettings:
		l.settings(c, flags, p)
	case framePing:
		if len(p) != 8 {
			l.protocolError(c, errBadFrame)
			return
		}
		if flags&flagAck == 0 {
			c.out = frameHeader(c.out, 8, framePing, flagAck, 0)
			c.out = append(c.out, p...)
			c.sentShared += frameHeaderLen + 8
			l.markDirty(c)
		}
	case frameGoAway:
		l.goAwayFrame(c, p)
	case frameWindowUpdate:
		l.windowUpdate(c, id, p)
	case framePushPromise:
		l.protocolError(c, errPush)
	}
}

// data counts a DATA frame's body bytes for its stream; the connection's
// window is given back once half of it is used.
func (l *h2Loop) data(c *h2Conn, flags byte, id uint32, p []byte) {
	c.unacked += len(p)
	if c.unacked >= loopWindow/2 {
		c.out = appendWindowUpdate(c.out, 0, uint32(c.unacked))
		c.sentShared += frameHeaderLen + 4
		c.unacked = 0
		l.markDirty(c)
	}
	body, ok := unpad(flags, p)
	if !ok {
		l.protocolError(c, errBadFrame)
		return
	}
	i, ok := c.streams.get(id)
	if !ok {
		return // a stream this client reset, or one it never opened
	}
	s := &l.slots[i]
	switch {
	case !s.gotHeaders:
		l.failStream(c, int(i), protocols.KindProtocol, errDataFirst, true)
		return
	case s.bodyLen+int64(len(body)) > l.maxBody:
		l.failStream(c, int(i), protocols.KindLength, httpcheck.ErrBodyTooLarge, flags&flagEndStream == 0)
		return
	}
	s.bodyLen += int64(len(body))
	if flags&flagEndStream != 0 {
		l.finish(c, int(i))
	}
}

// unpad is a DATA or HEADERS frame's payload without its padding.
func unpad(flags byte, p []byte) ([]byte, bool) {
	if flags&flagPadded == 0 {
		return p, true
	}
	if len(p) == 0 || int(p[0]) >= len(p) {
		return nil, false
	}
	return p[1 : len(p)-int(p[0])], true
}

// headers begins a header block, decoded when it is whole.
func (l *h2Loop) headers(c *h2Conn, flags byte, id uint32, p []byte) {
	frag, ok := unpad(flags, p)
	if ok && flags&flagPriority != 0 {
		ok = len(frag) >= 5
		if ok {
			frag = frag[5:]
		}
	}
	if !ok || id == 0 {
		l.protocolError(c, errBadFrame)
		return
	}
	c.hdrID, c.hdrEnd = id, flags&flagEndStream != 0
	if flags&flagEndHeaders == 0 {
		c.inBlock = true
		c.hdrBlock = append(c.hdrBlock[:0], frag...)
		return
	}
	l.headerBlock(c, frag)
}

// continuation goes on with the header block being read.
func (l *h2Loop) continuation(c *h2Conn, flags byte, id uint32, p []byte) {
	if !c.inBlock || id != c.hdrID {
		l.protocolError(c, errContinuation)
		return
	}
	c.hdrBlock = append(c.hdrBlock, p...)
	if len(c.hdrBlock) > maxHeaderBytes {
		l.protocolError(c, errConnHeadersTooLarge)
		return
	}
	if flags&flagEndHeaders != 0 {
		c.inBlock = false
		l.headerBlock(c, c.hdrBlock)
	}
}

// headerBlock decodes a whole header block, which keeps the connection's
// HPACK table whether or not its stream is still open, and hands its
// stream the status: a final one, or the trailers' end.
func (l *h2Loop) headerBlock(c *h2Conn, block []byte) {
	status, err := c.dec.decode(block)
	switch {
	case err == errHPACKString:
		l.protocolError(c, errConnHeadersTooLarge)
		return
	case err != nil:
		l.protocolError(c, errCompression)
		return
	}
	i, ok := c.streams.get(c.hdrID)
	if !ok {
		return
	}
	s := &l.slots[i]
	if !s.gotHeaders {
		switch {
		case status == 0:
			l.failStream(c, int(i), protocols.KindProtocol, errNoStatus, !c.hdrEnd)
			return
		case status >= 200:
			s.status, s.gotHeaders = int16(min(status, 999)), true
		}
	}
	if c.hdrEnd {
		if !s.gotHeaders {
			l.failStream(c, int(i), protocols.KindProtocol, errEndNoHead, false)
			return
		}
		l.finish(c, int(i))
	}
}

// settings applies the server's SETTINGS and acknowledges them; its
// first opens the connection to the streams waiting for it.
func (l *h2Loop) settings(c *h2Conn, flags byte, p []byte) {
	if flags&flagAck != 0 {
		return
	}
	if len(p)%6 != 0 {
		l.protocolError(c, errBadFrame)
		return
	}
	for ; len(p) > 0; p = p[6:] {
		v := binary.BigEndian.Uint32(p[2:6])
		switch binary.BigEndian.Uint16(p) {
		case 0x3: // MAX_CONCURRENT_STREAMS
			c.maxStreams = int(min(v, 1<<20))
		case 0x4: // INITIAL_WINDOW_SIZE
			if v > maxStreamID {
				l.protocolError(c, errBadSetting)
				return
			}
			l.peerWindowChanged(c, int32(v))
		case 0x5: // MAX_FRAME_SIZE
			if v < loopMaxFrame || v > 1<<24-1 {
				l.protocolError(c, errBadSetting)
				return
			}
			c.peerFrame = int(v)
		}
	}
	c.out = frameHeader(c.out, 0, frameSettings, flagAck, 0)
	c.sentShared += frameHeaderLen
	l.markDirty(c)
	if c.state == connOpening {
		c.state = connOpen
		l.eng.Answered(c.addr)
		l.opened(c)
	}
	l.startWaiting(c)
}

// opened charges the connect time to the request that opened c, when it
// still waits for it.
func (l *h2Loop) opened(c *h2Conn) {
	if c.opener < 0 {
		return
	}
	if s := &l.slots[c.opener]; s.waiting && s.conn == c.num {
		l.eng.Slot(int(c.opener)).Out.Connect = protocols.Now().Sub(c.dialAt)
	}
	c.opener = -1
}

// peerWindowChanged moves every open stream's window by the change of
// the server's SETTINGS_INITIAL_WINDOW_SIZE to v.
func (l *h2Loop) peerWindowChanged(c *h2Conn, v int32) {
	delta := v - c.peerWindow
	c.peerWindow = v
	if delta == 0 || c.active == 0 {
		return
	}
	for _, i := range c.streams.slots() {
		l.slots[i].sendWindow += delta
	}
	l.resumeBodies(c)
}

// windowUpdate takes a WINDOW_UPDATE of the connection (id 0) or of a
// stream into account.
func (l *h2Loop) windowUpdate(c *h2Conn, id uint32, p []byte) {
	if len(p) != 4 {
		l.protocolError(c, errBadFrame)
		return
	}
	n := binary.BigEndian.Uint32(p) & maxStreamID
	if id == 0 {
		c.sendWindow += int64(n)
	} else if i, ok := c.streams.get(id); ok {
		l.slots[i].sendWindow = int32(min(int64(l.slots[i].sendWindow)+int64(n), maxStreamID))
	}
	if len(c.blocked) > 0 {
		l.resumeBodies(c)
	}
}

// goAwayFrame stops new streams on c; the others go on to their end. The
// streams the server says it will not process never reached it: after a
// graceful GOAWAY (NO_ERROR, as a server that closes a connection after
// so many requests sends), each is sent once more on a new connection, as
// a browser would; after any other, or a second time, they fail.
func (l *h2Loop) goAwayFrame(c *h2Conn, p []byte) {
	if len(p) < 8 {
		l.protocolError(c, errBadFrame)
		return
	}
	l.goingAway(c)
	last := binary.BigEndian.Uint32(p) & maxStreamID
	code := http2.ErrCode(binary.BigEndian.Uint32(p[4:8]))
	var err error
	for _, i := range c.streams.slots() {
		s := &l.slots[i]
		if s.id <= last {
			continue
		}
		l.leave(c, int(i))
		if code == http2.ErrCodeNo && !s.retried {
			l.Issue(int(i))
			l.slots[i].retried = true
			continue
		}
		if err == nil {
			err = &goAwayError{last: last, code: code, debug: string(p[8:])}
		}
		l.eng.Fail(int(i), protocols.KindReset, fmt.Errorf("stream %d: %w", s.id, err))
	}
	l.drained(c)
}
