package http1

import (
	"bytes"
	"io"
	"strings"

	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// A response's status line and header block: found in the bytes that
// arrived, screened and parsed in place, the fields that frame the body
// kept, the rest skipped.

// header is the part of a header block that frames the body.
type header struct {
	status  int
	length  int64 // -1 when absent
	chunked bool
	close   bool
}

// readHeader reads one status line and header block into h and consumes it.
// What has arrived of an incomplete block is screened after every read, so
// that a reply that can no longer become a valid header block fails at
// once rather than when the server closes, or never.
func (p *respReader) readHeader(h *header) error {
	scanned := 0  // bytes after p.r known to hold no complete header block
	screened := 0 // bytes after p.r whose complete lines are screened
	for {
		// The first look parses the lines as it searches for the blank
		// line, one pass over a header that came in one read, as nearly
		// all do; a header that did not is found first, then parsed.
		end, err := -1, error(nil)
		if scanned == 0 {
			end, err = parseHeader(p.buf[p.r:p.w], h)
		} else if e := headerEnd(p.buf[:p.w], p.r+scanned); e >= 0 {
			end, err = parseHeader(p.buf[p.r:e], h)
		}
		if end >= 0 {
			end += p.r
			if p.head != nil {
				*p.head = append((*p.head)[:0], p.buf[p.r:end]...)
			}
			p.r = end
			return err
		}
		if screened, err = screenHeader(p.buf[p.r:p.w], screened); err != nil {
			return err
		}
		// A blank line completed by the next read starts at most two bytes
		// before the end of what is buffered.
		scanned = max(0, p.w-p.r-2)
		if p.buf != nil && p.w == len(p.buf) && p.r == 0 {
			if len(p.buf) >= http1MaxHeader {
				return errHeadersTooLarge
			}
			// The bigger buffer is kept for the worker's next responses.
			p.grow(min(2*len(p.buf), http1MaxHeader))
		}
		if err := p.fill(); err != nil {
			return err
		}
	}
}

// headerEnd returns the index just past the blank line ending the header
// block that is in b, searching from index from, or -1. Lines may end in
// CRLF or, leniently, a bare LF.
func headerEnd(b []byte, from int) int {
	for i := from; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		k := i + j + 1
		if k < len(b) && b[k] == '\n' {
			return k + 1
		}
		if k+1 < len(b) && b[k] == '\r' && b[k+1] == '\n' {
			return k + 2
		}
		i = k
	}
	return -1
}

// parseHeader parses the header block (status line, header lines, blank
// line) at the start of b and returns the index just past it, or -1 when b
// holds no complete block yet. An error in a complete block comes with its
// end; one in an incomplete block waits until the block is complete, as
// the reader reports it once the block is.
func parseHeader(b []byte, h *header) (end int, err error) {
	if end, err = parseLines(b, h); end < 0 {
		return -1, nil
	}
	return end, err
}

// parseLines is parseHeader, except that in an incomplete block (end -1)
// it reports the first error of the complete lines: the push parser needs
// it to know whether what screening found is the block's final error.
func parseLines(b []byte, h *header) (end int, err error) {
	*h = header{length: -1}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return -1, nil
	}
	status, http10, err := parseStatusLine(trimCR(b[:i]))
	if err != nil {
		return headerEnd(b, 0), err
	}
	h.status = status
	var keepAlive, framing bool
	for pos := i + 1; ; {
		j := bytes.IndexByte(b[pos:], '\n')
		if j < 0 {
			return -1, nil
		}
		start := pos
		line := trimCR(b[pos : pos+j])
		pos += j + 1
		if len(line) == 0 {
			end = pos
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			// An obsolete line folding continues the previous header: harmless
			// unless that header frames the body.
			if framing {
				return headerEnd(b, start), errHeaderLine
			}
			continue
		}
		if framing, err = parseField(line, h, &keepAlive); err != nil {
			return headerEnd(b, start), err
		}
	}
	if http10 && !keepAlive {
		h.close = true
	}
	if h.chunked && h.length >= 0 {
		// Both framings at once is how responses get smuggled: trust the
		// chunks, as RFC 9112 §6.3 says, but never reuse the connection.
		h.length = -1
		h.close = true
	}
	return end, nil
}

// parseField parses one header line (not a continuation) into h and
// reports whether the header frames the body. The name's bytes are
// checked in the same pass that finds its colon.
func parseField(line []byte, h *header, keepAlive *bool) (framing bool, err error) {
	colon := 0
	for colon < len(line) && tokenByte[line[colon]] {
		colon++
	}
	if colon == 0 || colon == len(line) || line[colon] != ':' {
		return false, errHeaderLine
	}
	name, value := line[:colon], httpcheck.TrimOWS(line[colon+1:])
	switch {
	case httpcheck.FieldIs(name, "content-length"):
		n, ok := parseLength(value)
		if !ok || (h.length >= 0 && h.length != n) {
			return true, errContentLength
		}
		h.length = n
	case httpcheck.FieldIs(name, "transfer-encoding"):
		switch {
		case httpcheck.FieldIs(value, "chunked") && !h.chunked:
			h.chunked = true
		case httpcheck.FieldIs(value, "identity"):
		default:
			return true, errTransferEncoding
		}
	case httpcheck.FieldIs(name, "connection"):
		for len(value) > 0 {
			var tok []byte
			if i := bytes.IndexByte(value, ','); i >= 0 {
				tok, value = httpcheck.TrimOWS(value[:i]), value[i+1:]
			} else {
				tok, value = httpcheck.TrimOWS(value), nil
			}
			switch {
			case httpcheck.FieldIs(tok, "close"):
				h.close = true
			case httpcheck.FieldIs(tok, "keep-alive"):
				*keepAlive = true
			}
		}
	default:
		return false, nil
	}
	return true, nil
}

// trimCR drops the CR of a line that ended in CRLF.
func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// nextLine splits b after its first LF; the line loses its CRLF or LF.
func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		line, rest = b, nil
	} else {
		line, rest = b[:i], b[i+1:]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// line consumes one LF-terminated line of at most limit bytes (limit ≤
// http1MaxHeader) and returns it without its CRLF or LF. The result is valid
// until the next read.
func (p *respReader) line(limit int) ([]byte, error) {
	from := p.r
	for {
		if i := bytes.IndexByte(p.buf[from:p.w], '\n'); i >= 0 {
			line, _ := nextLine(p.buf[p.r : from+i+1])
			p.r = from + i + 1
			return line, nil
		}
		off := p.w - p.r
		if limit == http1MaxLine && !chunkSizePrefix(p.buf[p.r:p.w]) {
			return nil, errChunk // no need to wait for the end of a bad line
		}
		if off >= limit {
			if limit == http1MaxLine {
				return nil, errLineTooLong
			}
			return nil, errHeadersTooLarge
		}
		if p.buf != nil && off == len(p.buf) {
			p.grow(min(2*len(p.buf), http1MaxHeader))
		}
		if err := p.fill(); err != nil {
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		from = p.r + off
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseLength parses a Content-Length value: decimal digits only, at most
// 18 of them so that it cannot overflow.
func parseLength(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseHex parses a chunk size: hex digits only, at most 15 of them so that
// it cannot overflow.
func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		var d byte
		switch {
		case isDigit(c):
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}

// isHeaderName reports whether b is an RFC 9110 token, the syntax of
// header names.
func isHeaderName(b []byte) bool {
	for _, c := range b {
		if !tokenByte[c] {
			return false
		}
	}
	return len(b) > 0
}

var tokenByte = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c)
	}
	return t
}()
