package http2

// The reader's side of a response's header blocks: decoding them, within
// the same limit on their size as over HTTP/1.1.

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/loadgate/loadgate/protocols/httpcheck"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// maxHeaderBytes bounds a response's header block (and its trailers), as
// HTTP/1.1 bounds its header lines: the client advertises it as
// SETTINGS_MAX_HEADER_LIST_SIZE, and a block larger on the wire, or where
// its fields are decoded (a flow step reading them) larger decoded as that
// setting counts (RFC 9113 §6.5.2: name, value and 32 bytes per field),
// fails the request as "headers too large" (kind protocol). No decoded
// string is longer either, so a worker never holds more of one.
const maxHeaderBytes = httpcheck.MaxHeaderBytes

var (
	// errHeadersTooLarge fails a response whose header block is larger
	// than maxHeaderBytes, in the words of the HTTP/1.1 client's own.
	errHeadersTooLarge = errors.New("http/2 response: headers too large")
	// errConnHeadersTooLarge fails the other streams of a connection
	// closed because a header block outgrew maxHeaderBytes on the wire.
	errConnHeadersTooLarge = fmt.Errorf("http/2: connection closed: a response's header block exceeded %d KiB (protocol error)",
		maxHeaderBytes>>10)
)

// listed counts field f of the header block being decoded against
// maxHeaderBytes; false once the block has outgrown it: the decoder then
// stops decoding fields into strings, and the block's stream fails when
// the block ends. The connection goes on, its HPACK state intact.
func (c *conn) listed(f hpack.HeaderField) bool {
	c.hdrList += int(f.Size())
	if c.hdrList <= maxHeaderBytes {
		return true
	}
	c.hdrOver = true
	c.dec.SetEmitEnabled(false)
	return false
}

// wireTooLarge fails the stream of a header block that outgrew
// maxHeaderBytes as sent, or holds a string longer, and returns the error
// that ends its connection: the rest of the block is not decoded, which
// leaves the connection's HPACK state unknown (RFC 9113 §4.3), as x/net's
// framer closes a connection whose peer sends far more than its limit.
func (c *conn) wireTooLarge() error {
	// Dead before the stream's worker wakes, so that its next request
	// goes over another connection, not this one as it closes.
	c.dead.Store(true)
	if s := c.lookup(c.hdrID); s != nil {
		s.fail(c, c.hdrID, errHeadersTooLarge)
	}
	return errConnHeadersTooLarge
}

// staticStatus is the :status of HPACK's static table entries 8 to 14.
var staticStatus = [...]int{200, 204, 206, 304, 400, 404, 500}

// emit takes each field the decoder decodes of the header block being
// read: its :status, and its other fields when its stream keeps them.
func (c *conn) emit(f hpack.HeaderField) {
	if !c.listed(f) {
		return
	}
	switch {
	case f.Name == ":status":
		c.status, _ = strconv.Atoi(f.Value)
	case c.hdrKeep:
		c.hdrFields = append(append(append(append(c.hdrFields, f.Name...), ": "...), f.Value...), "\r\n"...)
	}
}

// statusBlock is headerBlock for a connection whose blocks sdec decodes:
// a block sent in several frames is decoded once it is whole, within
// maxHeaderBytes as sent.
func (c *conn) statusBlock(frag []byte, end bool) error {
	if c.hdrWire += len(frag); c.hdrWire > maxHeaderBytes {
		return c.wireTooLarge()
	}
	block := frag
	if !end || len(c.hdrBlock) > 0 {
		c.hdrBlock = append(c.hdrBlock, frag...)
		if !end {
			return nil
		}
		block = c.hdrBlock
	}
	status, err := c.sdec.decode(block)
	c.hdrBlock = c.hdrBlock[:0]
	switch {
	case err == errHPACKString:
		return c.wireTooLarge()
	case err != nil:
		return http2.ConnectionError(http2.ErrCodeCompression)
	}
	if s := c.lookup(c.hdrID); s != nil {
		s.headers(c, c.hdrID, status, c.hdrEnd, nil)
	}
	return nil
}

// headerBlock decodes one fragment of the header block being read and,
// at its end, delivers the block to its stream; an error ends the
// connection.
func (c *conn) headerBlock(frag []byte, end bool) error {
	if c.hdrWire += len(frag); c.hdrWire > maxHeaderBytes {
		return c.wireTooLarge()
	}
	if _, err := c.dec.Write(frag); err != nil {
		if errors.Is(err, hpack.ErrStringLength) {
			return c.wireTooLarge()
		}
		return http2.ConnectionError(http2.ErrCodeCompression)
	}
	if !end {
		return nil
	}
	if err := c.dec.Close(); err != nil {
		return http2.ConnectionError(http2.ErrCodeCompression)
	}
	if s := c.lookup(c.hdrID); s != nil {
		if c.hdrOver {
			s.fail(c, c.hdrID, errHeadersTooLarge)
			return nil
		}
		var fields []byte
		if c.hdrKeep {
			fields = c.hdrFields
		}
		s.headers(c, c.hdrID, c.status, c.hdrEnd, fields)
	}
	return nil
}
