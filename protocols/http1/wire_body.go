package http1

import (
	"bytes"
	"io"

	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// Next returns the next piece of the body, consumed, or io.EOF at its end
// (after the trailers of a chunked body). The piece is valid until the next
// call. It never returns more than max_body in all.
func (p *respReader) Next() ([]byte, error) {
	switch p.mode {
	case bodyFixed:
		if p.left == 0 {
			p.mode = bodyDone
			return nil, io.EOF
		}
		return p.part()
	case bodyChunked:
		if p.left == 0 {
			if err := p.nextChunk(); err != nil {
				return nil, err
			}
			if p.mode == bodyDone {
				return nil, io.EOF
			}
		}
		return p.part()
	case bodyClose:
		return p.untilClose()
	}
	return nil, io.EOF
}

// part returns buffered bytes of the fixed body or of the current chunk,
// reading when none is buffered.
func (p *respReader) part() ([]byte, error) {
	if p.r == p.w {
		if p.left > int64(len(p.buf)) {
			p.growFor(p.left)
		}
		if err := p.fill(); err != nil {
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	k := int(min(int64(p.w-p.r), p.left))
	b := p.buf[p.r : p.r+k]
	p.r += k
	p.left -= int64(k)
	p.resp.bodyLen += int64(k)
	return b, nil
}

// untilClose returns what is buffered of a body that ends when the server
// closes.
func (p *respReader) untilClose() ([]byte, error) {
	for {
		if k := p.w - p.r; k > 0 {
			if p.resp.bodyLen+int64(k) > p.maxBody {
				return nil, errBodyTooLarge
			}
			p.full = p.w == len(p.buf) // more may be waiting
			b := p.buf[p.r:p.w]
			p.r = p.w
			p.resp.bodyLen += int64(k)
			return b, nil
		}
		if p.full {
			p.growFor(2 * int64(len(p.buf)))
			p.full = false
		}
		if err := p.fill(); err != nil {
			if err == io.EOF {
				p.mode = bodyDone
				return nil, io.EOF
			}
			return nil, err
		}
	}
}

// nextChunk consumes the end of the current chunk and the size line of the
// next; after the last chunk, it consumes the trailers and ends the body.
func (p *respReader) nextChunk() error {
	if p.inChunk {
		for p.w-p.r < 2 {
			if p.r < p.w && p.buf[p.r] != '\r' {
				return errChunk
			}
			if err := p.fill(); err != nil {
				if err == io.EOF {
					return io.ErrUnexpectedEOF
				}
				return err
			}
		}
		if p.buf[p.r] != '\r' || p.buf[p.r+1] != '\n' {
			return errChunk
		}
		p.r += 2
		p.inChunk = false
	}
	line, err := p.line(http1MaxLine)
	if err != nil {
		return err
	}
	size, ok := parseChunkSize(line)
	switch {
	case !ok:
		return errChunk
	case size == 0:
		p.mode = bodyDone
		return p.trailers()
	case size > p.maxBody-p.resp.bodyLen:
		return errBodyTooLarge
	}
	p.left, p.inChunk = size, true
	return nil
}

// trailers consumes the trailer section of a chunked body.
func (p *respReader) trailers() error {
	n := 0
	for {
		line, err := p.line(http1MaxHeader)
		if err != nil {
			return err
		}
		if len(line) == 0 {
			return nil
		}
		if n, err = trailerLine(line, n); err != nil {
			return err
		}
	}
}

// parseChunkSize parses a chunk-size line, without its CRLF.
func parseChunkSize(line []byte) (int64, bool) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i] // chunk extensions carry nothing a load test needs
	}
	return parseHex(httpcheck.TrimOWS(line))
}

// trailerLine checks one trailer line, not blank, n being the bytes of the
// trailer lines before it, and returns n counting it.
func trailerLine(line []byte, n int) (int, error) {
	if n += len(line); n > http1MaxHeader {
		return n, errHeadersTooLarge
	}
	if colon := bytes.IndexByte(line, ':'); colon <= 0 || !isHeaderName(line[:colon]) {
		return n, errHeaderLine
	}
	return n, nil
}
