package websocket

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gobwas/ws"
)

// The client side of RFC 6455 framing. gobwas/ws opens the connection;
// frames are encoded and parsed here, in buffers the worker reuses, so a
// message costs no allocation (gobwas's own ReadHeader and WriteHeader
// allocate a small slice per frame).

// maxHeader is the longest frame header a client writes: 2 bytes, an
// 8-byte extended length and a 4-byte masking key.
const maxHeader = 14

// maxControl is the largest payload of a control frame (RFC 6455 §5.5).
const maxControl = 125

// appendFrame appends one final, masked frame of op carrying payload.
func appendFrame(dst []byte, op ws.OpCode, payload []byte, mask [4]byte) []byte {
	n := len(payload)
	dst = append(dst, 0x80|byte(op))
	switch {
	case n <= 125:
		dst = append(dst, 0x80|byte(n))
	case n <= 0xffff:
		dst = append(dst, 0x80|126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0x80|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	dst = append(dst, mask[:]...)
	start := len(dst)
	dst = append(dst, payload...)
	ws.Cipher(dst[start:], mask, 0)
	return dst
}

// The errors of frames a client must not accept; each is a "protocol"
// error.
var (
	errTooLarge     = errors.New("websocket: message larger than max_message")
	errMasked       = errors.New("websocket: the server sent a masked frame")
	errReservedBits = errors.New("websocket: frame with reserved bits set (no extension was negotiated)")
	errBadOpcode    = errors.New("websocket: frame with a reserved opcode")
	errBadControl   = errors.New("websocket: fragmented or oversized control frame")
	errContinuation = errors.New("websocket: continuation frame outside a fragmented message")
	errInterleaved  = errors.New("websocket: new data frame inside a fragmented message")
	// errClosed is a close frame without an error code: the connection
	// ended, as if reset, rather than the protocol being broken.
	errClosed = errors.New("websocket: the server closed the connection (close frame)")
)

// closeError is a close frame the server sent with an error code. They
// are made once, one per code of the RFC and one for the ranges
// applications use, so a failing iteration allocates nothing for them.
type closeError struct{ msg string }

func (e *closeError) Error() string { return e.msg }

// closeErrors holds the errors of codes 1002 to 1015, by code - 1000.
var closeErrors = func() (errs [16]*closeError) {
	for code := 2; code < len(errs); code++ {
		errs[code] = &closeError{fmt.Sprintf("websocket: the server closed the connection with code %d", 1000+code)}
	}
	return errs
}()

var errCloseOther = &closeError{"websocket: the server closed the connection with an error code outside 1002-1015 (an application's)"}

// closeFrameError is the error of a close frame with payload p: a
// *closeError for an error code, errClosed for a normal closure.
func closeFrameError(p []byte) error {
	if len(p) < 2 {
		return errClosed
	}
	code := int(binary.BigEndian.Uint16(p)) - 1000
	switch {
	case code == 0, code == 1: // normal closure, going away
		return errClosed
	case code >= 2 && code < len(closeErrors):
		return closeErrors[code]
	default:
		return errCloseOther
	}
}

// protocolError reports whether err is a violation of the protocol by the
// server, or a close frame with an error code: a "protocol" error.
func protocolError(err error) bool {
	switch err {
	case errTooLarge, errMasked, errReservedBits, errBadOpcode, errBadControl, errContinuation, errInterleaved:
		return true
	}
	_, ok := err.(*closeError)
	return ok
}

// control answers the control frames met while reading a message; the
// client sends pongs and the reply to a close frame through it.
type control interface {
	control(op ws.OpCode, payload []byte)
}

// msgReader reads whole data messages from a connection, answering the
// control frames in between, with a read buffer and a message buffer that
// the worker keeps across iterations.
type msgReader struct {
	buf  []byte // bytes read and not yet parsed are buf[r:w]
	r, w int
	msg  []byte // the message being read; grows up to max_message, once
	ctl  [maxControl]byte
	max  int64
	n    int64 // bytes read from the connection, for the outcome
}

func newMsgReader(max int64) msgReader {
	return msgReader{buf: make([]byte, 16<<10), max: max}
}

// reset forgets what was buffered from a previous connection.
func (m *msgReader) reset() { m.r, m.w = 0, 0 }

// preload takes the bytes the handshake read past its response.
func (m *msgReader) preload(p []byte) {
	m.reset()
	m.w = copy(m.buf, p)
}

// fill makes at least n bytes (n <= len(buf)) available in buf[r:].
func (m *msgReader) fill(src io.Reader, n int) error {
	if m.w-m.r >= n {
		return nil
	}
	if len(m.buf)-m.r < n {
		m.w = copy(m.buf, m.buf[m.r:m.w])
		m.r = 0
	}
	for m.w-m.r < n {
		k, err := src.Read(m.buf[m.w:])
		m.w += k
		m.n += int64(k)
		if m.w-m.r >= n {
			return nil
		}
		if err != nil {
			if err == io.EOF && m.w > m.r {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// header is the part of a frame header a client acts on.
type header struct {
	fin    bool
	op     ws.OpCode
	length int64
}

// readHeader parses the next frame header.
func (m *msgReader) readHeader(src io.Reader) (header, error) {
	if err := m.fill(src, 2); err != nil {
		return header{}, err
	}
	b0, b1 := m.buf[m.r], m.buf[m.r+1]
	h := header{fin: b0&0x80 != 0, op: ws.OpCode(b0 & 0x0f), length: int64(b1 & 0x7f)}
	switch {
	case b0&0x70 != 0:
		return h, errReservedBits
	case b1&0x80 != 0:
		return h, errMasked
	}
	size := 2
	switch h.length {
	case 126:
		size = 4
	case 127:
		size = 10
	}
	if err := m.fill(src, size); err != nil {
		return h, err
	}
	switch size {
	case 4:
		h.length = int64(binary.BigEndian.Uint16(m.buf[m.r+2:]))
	case 10:
		v := binary.BigEndian.Uint64(m.buf[m.r+2:])
		if v > 1<<62 {
			return h, errTooLarge
		}
		h.length = int64(v)
	}
	m.r += size
	return h, nil
}

// payload reads n bytes of payload into dst, from the buffer first.
func (m *msgReader) payload(src io.Reader, dst []byte) error {
	k := copy(dst, m.buf[m.r:m.w])
	m.r += k
	if k == len(dst) {
		return nil
	}
	n, err := io.ReadFull(src, dst[k:])
	m.n += int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// next reads one text or binary message, which stays valid until the next
// call. A message larger than max is refused from its header, before any
// of it is read or allocated.
func (m *msgReader) next(src io.Reader, ctl control) ([]byte, error) {
	m.msg = m.msg[:0]
	inMessage := false
	for {
		h, err := m.readHeader(src)
		if err != nil {
			return nil, err
		}
		if h.op.IsControl() {
			if err := m.controlFrame(src, h, ctl); err != nil {
				return nil, err
			}
			continue
		}
		switch {
		case h.op.IsReserved():
			return nil, errBadOpcode
		case h.op == ws.OpContinuation && !inMessage:
			return nil, errContinuation
		case h.op != ws.OpContinuation && inMessage:
			return nil, errInterleaved
		case int64(len(m.msg))+h.length > m.max:
			return nil, errTooLarge
		}
		inMessage = true
		start := len(m.msg)
		m.msg = grow(m.msg, int(h.length), int(m.max))
		if err := m.payload(src, m.msg[start:]); err != nil {
			return nil, err
		}
		if h.fin {
			return m.msg, nil
		}
	}
}

// controlFrame reads a control frame and answers it: a ping with a pong,
// a close frame with a close frame, then its error.
func (m *msgReader) controlFrame(src io.Reader, h header, ctl control) error {
	if !h.fin || h.length > maxControl {
		return errBadControl
	}
	if h.op.IsReserved() {
		return errBadOpcode
	}
	p := m.ctl[:h.length]
	if err := m.payload(src, p); err != nil {
		return err
	}
	switch h.op {
	case ws.OpPing:
		ctl.control(ws.OpPong, p)
	case ws.OpClose:
		err := closeFrameError(p)
		if len(p) > 2 {
			p = p[:2] // echo the code, not the reason
		}
		ctl.control(ws.OpClose, p)
		return err
	}
	return nil
}

// grow extends b by n bytes, reallocating only when its capacity is
// short: the message buffer settles at the size of the largest message.
// grow never makes it larger than limit, which len(b)+n is within.
func grow(b []byte, n, limit int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	nb := make([]byte, len(b)+n, min(max(2*cap(b), len(b)+n), limit))
	copy(nb, b)
	return nb
}
