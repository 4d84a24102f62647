package tcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/loadgate/loadgate/scenarios"
)

// Frame errors are "protocol" failures: the peer sent something the
// framing cannot accept, so the connection is dropped.
var (
	errFrameTooLarge = errors.New("frame larger than max_frame")
	errBadFrame      = errors.New("malformed frame")
)

// frameCodec writes and splits the messages of one TCP target's framing.
// It is built once per client from the resolved scenario, so no frame
// parameter is looked up or parsed per message.
type frameCodec struct {
	kind     scenarios.FramingKind
	fields   []scenarios.FrameField
	header   int   // length-prefixed: header size in bytes
	adjust   int64 // length-prefixed: payload length = length field + adjust
	lenOff   int   // length-prefixed: offset of the length field in the header
	lenField scenarios.FrameField
	delim    []byte // line
	size     int    // fixed
	maxFrame int    // largest payload accepted, in bytes
}

func newFrameCodec(t *scenarios.TCPTarget) frameCodec {
	f := &t.Framing
	c := frameCodec{kind: f.Kind, fields: f.Fields, adjust: f.Adjust, delim: f.Delimiter, size: f.Size, maxFrame: int(t.MaxFrame)}
	for _, fl := range f.Fields {
		if fl.Length {
			c.lenOff, c.lenField = c.header, fl
		}
		c.header += fl.Size
	}
	return c
}

// limit is the most bytes one message occupies on the wire, which is as
// far as the read buffer may grow.
func (c *frameCodec) limit() int {
	switch c.kind {
	case scenarios.FramingLengthPrefixed:
		return c.header + c.maxFrame
	case scenarios.FramingLine:
		return c.maxFrame + len(c.delim)
	case scenarios.FramingFixed:
		return c.size
	}
	return c.maxFrame
}

// open starts a framed message at the end of dst; the payload is appended
// after it, and close finishes the message. It returns the extended dst
// and where the message starts.
func (c *frameCodec) open(dst []byte) ([]byte, int) {
	start := len(dst)
	for range c.header {
		dst = append(dst, 0)
	}
	return dst, start
}

// close finishes the message opened at start: it fills the header, or
// appends the delimiter, or pads a fixed-size message with NUL bytes. The
// scenario checked at load time that every payload fits, so a payload that
// does not is a bug and is cut to size rather than sent malformed.
func (c *frameCodec) close(dst []byte, start int) []byte {
	switch c.kind {
	case scenarios.FramingLengthPrefixed:
		payload := int64(len(dst) - start - c.header)
		h := dst[start : start+c.header]
		off := 0
		for _, fl := range c.fields {
			v := fl.Value
			if fl.Length {
				v = uint64(payload - c.adjust)
			}
			putFrameUint(h[off:off+fl.Size], v, fl.LittleEndian)
			off += fl.Size
		}
	case scenarios.FramingLine:
		dst = append(dst, c.delim...)
	case scenarios.FramingFixed:
		for len(dst)-start < c.size {
			dst = append(dst, 0)
		}
		dst = dst[:start+c.size]
	}
	return dst
}

func putFrameUint(b []byte, v uint64, little bool) {
	switch {
	case len(b) == 1:
		b[0] = byte(v)
	case len(b) == 2 && little:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case len(b) == 2:
		binary.BigEndian.PutUint16(b, uint16(v))
	case len(b) == 4 && little:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case len(b) == 4:
		binary.BigEndian.PutUint32(b, uint32(v))
	case little:
		binary.LittleEndian.PutUint64(b, v)
	default:
		binary.BigEndian.PutUint64(b, v)
	}
}

func getFrameUint(b []byte, little bool) uint64 {
	switch {
	case len(b) == 1:
		return uint64(b[0])
	case len(b) == 2 && little:
		return uint64(binary.LittleEndian.Uint16(b))
	case len(b) == 2:
		return uint64(binary.BigEndian.Uint16(b))
	case len(b) == 4 && little:
		return uint64(binary.LittleEndian.Uint32(b))
	case len(b) == 4:
		return uint64(binary.BigEndian.Uint32(b))
	case little:
		return binary.LittleEndian.Uint64(b)
	default:
		return binary.BigEndian.Uint64(b)
	}
}

// split finds the message at the start of data. It returns the payload as
// data[lo:hi] and the message's size on the wire, n; n == 0 means data does
// not hold a whole message yet. With framing none, e says where the reply
// ends. split never allocates and never looks past what a message of
// max_frame could occupy, so a peer cannot make it hold more.
func (c *frameCodec) split(data []byte, e *scenarios.TCPExpect) (lo, hi, n int, err error) {
	switch c.kind {
	case scenarios.FramingLengthPrefixed:
		return c.splitLengthPrefixed(data)
	case scenarios.FramingLine:
		return c.splitLine(data)
	case scenarios.FramingFixed:
		if len(data) < c.size {
			return 0, 0, 0, nil
		}
		return 0, c.size, c.size, nil
	}
	return c.splitNone(data, e)
}

func (c *frameCodec) splitLengthPrefixed(data []byte) (lo, hi, n int, err error) {
	if len(data) < c.header {
		return 0, 0, 0, nil
	}
	v := getFrameUint(data[c.lenOff:c.lenOff+c.lenField.Size], c.lenField.LittleEndian)
	// max_frame and adjust are both below 2³¹, so any length above 2⁶² is
	// too large whatever adjust says, and the sum below cannot overflow.
	if v > 1<<62 {
		return 0, 0, 0, errFrameTooLarge
	}
	payload := int64(v) + c.adjust
	switch {
	case payload < 0:
		return 0, 0, 0, errBadFrame
	case payload > int64(c.maxFrame):
		return 0, 0, 0, errFrameTooLarge
	}
	end := c.header + int(payload)
	if len(data) < end {
		return 0, 0, 0, nil
	}
	return c.header, end, end, nil
}

func (c *frameCodec) splitLine(data []byte) (lo, hi, n int, err error) {
	// A longer line could not be accepted anyway, so the search stops
	// there. Searching again from the start after every read costs a few
	// passes over at most max_frame bytes, which bytes.Index makes cheap.
	window := data[:min(len(data), c.maxFrame+len(c.delim))]
	if i := bytes.Index(window, c.delim); i >= 0 {
		return 0, i, i + len(c.delim), nil
	}
	if len(window) == c.maxFrame+len(c.delim) {
		return 0, 0, 0, errFrameTooLarge
	}
	return 0, 0, 0, nil
}

func (c *frameCodec) splitNone(data []byte, e *scenarios.TCPExpect) (lo, hi, n int, err error) {
	if e.Bytes > 0 {
		if int64(len(data)) < e.Bytes {
			return 0, 0, 0, nil
		}
		return 0, int(e.Bytes), int(e.Bytes), nil
	}
	window := data[:min(len(data), c.maxFrame)]
	if i := bytes.Index(window, e.Contains); i >= 0 {
		end := i + len(e.Contains)
		return 0, end, end, nil
	}
	if len(window) == c.maxFrame {
		return 0, 0, 0, errFrameTooLarge
	}
	return 0, 0, 0, nil
}

// frameReader reads messages from a connection into one buffer that a
// worker keeps for all its connections. The buffer starts small and grows
// with the bytes that actually arrive, never with what a header declares,
// up to the codec's limit.
type frameReader struct {
	buf  []byte
	r, w int // unread bytes are buf[r:w]
	// err is an error the raw exchange met in reading for it, which the
	// next read it would make reports instead.
	err error
}

const initialReadBuffer = 4 << 10

// reset forgets unread bytes, when the connection they came from is gone.
func (fr *frameReader) reset() { fr.r, fr.w, fr.err = 0, 0, nil }

// empty reports whether no unread byte is buffered.
func (fr *frameReader) empty() bool { return fr.r == fr.w }

// pending is what was read of a message that did not complete, valid
// until the next call; nil when nothing was.
func (fr *frameReader) pending() []byte {
	if fr.r == fr.w {
		return nil
	}
	return fr.buf[fr.r:fr.w]
}

// next returns the payload of the next message, valid until the next call,
// and the number of bytes read from src to get it. Bytes read beyond the
// message stay buffered for the next call. An error is a frame error, the
// error of src, or io.ErrUnexpectedEOF when src ended inside a message.
func (fr *frameReader) next(src io.Reader, c *frameCodec, e *scenarios.TCPExpect) (payload []byte, read int64, err error) {
	var srcErr error
	for {
		lo, hi, n, err := c.split(fr.buf[fr.r:fr.w], e)
		if err != nil {
			return nil, read, err
		}
		if n > 0 {
			payload = fr.buf[fr.r+lo : fr.r+hi]
			fr.r += n
			if fr.r == fr.w {
				fr.r, fr.w = 0, 0
			}
			return payload, read, nil
		}
		if srcErr != nil {
			if srcErr == io.EOF && fr.w > fr.r {
				srcErr = io.ErrUnexpectedEOF
			}
			return nil, read, srcErr
		}
		if fr.err != nil {
			srcErr, fr.err = fr.err, nil
			continue
		}
		free, err := fr.room(c.limit())
		if err != nil {
			return nil, read, err
		}
		m, err := src.Read(free)
		fr.w += m
		read += int64(m)
		srcErr = err
		if m == 0 && err == nil {
			// A reader may return nothing without an error; asking again
			// is what io.Reader's contract leaves callers.
			continue
		}
	}
}

// room returns the free space after the unread bytes, for a read to fill
// and w to count, which it makes when there is none: by moving the unread
// bytes to the front, or by growing the buffer, doubling up to limit.
func (fr *frameReader) room(limit int) ([]byte, error) {
	if fr.buf == nil {
		fr.buf = make([]byte, min(initialReadBuffer, max(limit, 1)))
	}
	if fr.w < len(fr.buf) {
		return fr.buf[fr.w:], nil
	}
	if fr.r > 0 {
		fr.w = copy(fr.buf, fr.buf[fr.r:fr.w])
		fr.r = 0
		return fr.buf[fr.w:], nil
	}
	if len(fr.buf) >= limit {
		// split would have found a message that fits; none does.
		return nil, errFrameTooLarge
	}
	grown := make([]byte, min(max(2*len(fr.buf), initialReadBuffer), limit))
	fr.w = copy(grown, fr.buf[:fr.w])
	fr.buf = grown
	return fr.buf[fr.w:], nil
}
