package http1

import (
	"bytes"
	"io"
)

// pushParser parses the responses of one connection from bytes pushed as
// they arrive, for an event loop that reads whatever a readable socket
// holds and cannot block in a Read as respReader does.
//
// Its results are those of respReader.read (no body reader, no header
// capture) given the whole stream at once, whatever the pieces the bytes
// come in: respReader decides some things by what one read brought, and the
// push parser decides them as if every byte up to the limits had come in
// one read. Two consequences:
//   - an incomplete header block whose screening finds an error is failed
//     at once only when the complete block could not fail otherwise (an
//     earlier line's bad Content-Length would win); else the error waits
//     for the block's end, the connection's end or the header size limit;
//   - a chunk-size line must end within http1MaxLine bytes and a trailer
//     line within http1MaxHeader, as when they arrive a byte at a time.
//
// The caller keeps the bytes feed did not consume at the front of its
// buffer and appends the next read after them. It needs room for
// http1MaxHeader unconsumed bytes: no more are ever needed to decide.
type pushParser struct {
	resp    response // wire counts the bytes consumed until the end
	maxBody int64
	head    bool
	state   pushState
	left    int64 // bytes left of a fixed body or of the current chunk
	interim int   // 1xx responses skipped
	seen    int64 // bytes of the response handed to feed, consumed or not
	err     error // what ended the response, returned again

	// Progress in the unconsumed bytes, handed in again with more after
	// them, so that bytes arriving one by one are not scanned again.
	scanned  int // bytes holding no end of header block, or no LF
	screened int // offset of the header block's first unscreened line
	trailer  int // bytes of trailer lines so far
	// screenErr is what screening found in an incomplete header block
	// when an earlier complete line holds another error, which the
	// complete block would report: it is the answer only if the block
	// never completes.
	screenErr error
}

// pushState is the part of a response the parser expects next.
type pushState uint8

const (
	pushHeader    pushState = iota // a status line and header block
	pushFixed                      // left bytes of a Content-Length body
	pushChunkSize                  // a chunk-size line
	pushChunkData                  // left bytes of a chunk's data
	pushChunkEnd                   // the CRLF after a chunk's data
	pushTrailer                    // a trailer line, or the blank line ending them
	pushClose                      // body bytes until the server closes
	pushDone                       // the final response is complete
)

// reset prepares the parser for the next response; head says the request
// was HEAD, so the response has no body. Bodies over maxBody are refused.
func (p *pushParser) reset(head bool, maxBody int64) {
	*p = pushParser{head: head, maxBody: maxBody}
}

// result is the response parsed. After an error, wire counts every byte
// handed in for the response, as respReader counts every byte it read,
// but no more than a limit that was exceeded allows, where respReader's
// buffer stops.
func (p *pushParser) result() response { return p.resp }

// feed parses what it can of b, the connection's unparsed bytes (the
// caller keeps any bytes not consumed at the front of its buffer and
// appends the next read after them). It returns how many bytes it
// consumed, whether the final response is complete (then the bytes after
// n belong to the next response), and an error for a response loadgate
// refuses, after which the connection is not to be reused.
func (p *pushParser) feed(b []byte) (n int, done bool, err error) {
	switch {
	case p.err != nil:
		return 0, false, p.err
	case p.state == pushDone:
		return 0, true, nil
	}
	if int64(len(b)) < p.seen-p.resp.wire {
		// Fewer bytes than were left unconsumed: not how feed is to be
		// called, but scanning again from the start costs a panic less.
		p.scanned, p.screened = 0, 0
	}
	p.seen = p.resp.wire + int64(len(b))
	for p.state != pushDone {
		k, more, err := p.step(b[n:])
		n += k
		p.resp.wire += int64(k)
		if err != nil {
			return n, false, p.fail(err)
		}
		if more {
			return n, false, nil
		}
	}
	return n, true, nil
}

// eof says the peer closed: it completes a body delimited by the close,
// or returns the error respReader would: io.ErrUnexpectedEOF when part of
// a response arrived, io.EOF when none did.
func (p *pushParser) eof() (done bool, err error) {
	switch {
	case p.err != nil:
		return false, p.err
	case p.state == pushDone:
		return true, nil
	case p.state == pushClose:
		p.state = pushDone
		return true, nil
	case p.seen == 0:
		return false, p.fail(io.EOF)
	case p.screenErr != nil:
		return false, p.fail(p.screenErr)
	}
	return false, p.fail(io.ErrUnexpectedEOF)
}

func (p *pushParser) fail(err error) error {
	p.err = err
	p.resp.wire = p.seen
	return err
}

// failAt fails with a size limit's error: limit bytes from the current
// offset were enough to decide, and that is where respReader stops reading.
func (p *pushParser) failAt(limit int, err error) (int, bool, error) {
	p.seen = min(p.seen, p.resp.wire+int64(limit))
	return 0, false, err
}

// step parses the part of the response the state names from b, the
// unconsumed bytes, and returns what it consumed, and more when it needs
// bytes that b does not have yet.
func (p *pushParser) step(b []byte) (n int, more bool, err error) {
	switch p.state {
	case pushHeader:
		return p.header(b)
	case pushFixed, pushChunkData:
		return p.data(b)
	case pushChunkSize:
		return p.chunkSize(b)
	case pushChunkEnd:
		return p.chunkEnd(b)
	case pushTrailer:
		return p.trailerLine(b)
	case pushClose:
		return p.untilClose(b)
	}
	return 0, true, nil
}

// header parses a status line and header block, interim or final, once it
// is complete. respReader's buffer ends http1MaxHeader bytes after the
// block's start: what lies beyond is not looked at.
func (p *pushParser) header(b []byte) (int, bool, error) {
	b = b[:min(len(b), http1MaxHeader)]
	var h header
	end, err := -1, error(nil)
	// As in readHeader, a block that arrived whole is parsed in the pass
	// that finds its end.
	if p.scanned == 0 {
		end, err = parseHeader(b, &h)
	} else if e := headerEnd(b, p.scanned); e >= 0 {
		end, err = parseHeader(b[:e], &h)
	}
	if end < 0 {
		return 0, true, p.incomplete(b)
	}
	if err != nil {
		return 0, false, err
	}
	p.scanned, p.screened, p.screenErr = 0, 0, nil
	return end, false, p.headerDone(&h)
}

// incomplete screens a header block that has no end yet, so that a reply
// that cannot become a valid block fails at once, as in readHeader.
func (p *pushParser) incomplete(b []byte) error {
	if p.screenErr == nil {
		screened, err := screenHeader(b, p.screened)
		if err != nil {
			// A complete block would fail at its first faulty line, which
			// screening, checking names only, may have passed.
			var h header
			if _, first := parseLines(b, &h); first == nil || first == err {
				return err
			}
			p.screenErr = err
		}
		p.screened = screened
	}
	// A blank line completed later starts at most two bytes before the end.
	p.scanned = max(0, len(b)-2)
	if len(b) == http1MaxHeader {
		err := error(errHeadersTooLarge)
		if p.screenErr != nil {
			err = p.screenErr
		}
		_, _, err = p.failAt(http1MaxHeader, err)
		return err
	}
	return nil
}

// pushBodyState is where the parser goes once a body framed by a mode
// starts.
var pushBodyState = [...]pushState{bodyDone: pushDone, bodyFixed: pushFixed, bodyChunked: pushChunkSize, bodyClose: pushClose}

// headerDone acts on a complete header block: it skips a 1xx response,
// or sets up the reading of the final response's body.
func (p *pushParser) headerDone(h *header) error {
	if h.status < 200 {
		if h.status == 101 {
			return errSwitching
		}
		if p.interim++; p.interim > http1MaxInterim {
			return errTooManyInterim
		}
		return nil
	}
	p.resp.status, p.resp.close = h.status, h.close
	mode, left, err := framing(h, p.head, p.maxBody)
	if err != nil {
		return err
	}
	p.state, p.left = pushBodyState[mode], left
	p.resp.close = p.resp.close || mode == bodyClose
	return nil
}

// data consumes what b has of a fixed body or of a chunk's data.
func (p *pushParser) data(b []byte) (int, bool, error) {
	if p.left == 0 {
		if p.state == pushFixed {
			p.state = pushDone
		} else {
			p.state = pushChunkEnd
		}
		return 0, false, nil
	}
	if len(b) == 0 {
		return 0, true, nil
	}
	k := int(min(int64(len(b)), p.left))
	p.left -= int64(k)
	p.resp.bodyLen += int64(k)
	return k, false, nil
}

// untilClose consumes body bytes until the server closes.
func (p *pushParser) untilClose(b []byte) (int, bool, error) {
	if p.resp.bodyLen+int64(len(b)) > p.maxBody {
		return 0, false, errBodyTooLarge
	}
	p.resp.bodyLen += int64(len(b))
	return len(b), true, nil
}

// chunkEnd consumes the CRLF after a chunk's data.
func (p *pushParser) chunkEnd(b []byte) (int, bool, error) {
	switch {
	case len(b) > 0 && b[0] != '\r':
		return 0, false, errChunk
	case len(b) < 2:
		return 0, true, nil
	case b[1] != '\n':
		return 0, false, errChunk
	}
	p.state = pushChunkSize
	return 2, false, nil
}

// chunkSize consumes a chunk-size line and acts on the size: the chunk's
// data next, or the trailers after the last chunk.
func (p *pushParser) chunkSize(b []byte) (int, bool, error) {
	line, n, err := p.line(b, http1MaxLine)
	if line == nil || err != nil {
		return 0, err == nil, err
	}
	size, ok := parseChunkSize(line)
	switch {
	case !ok:
		return 0, false, errChunk
	case size == 0:
		p.state = pushTrailer
	case size > p.maxBody-p.resp.bodyLen:
		return 0, false, errBodyTooLarge
	default:
		p.state, p.left = pushChunkData, size
	}
	return n, false, nil
}

// trailerLine consumes a trailer line, or the blank line ending the body.
func (p *pushParser) trailerLine(b []byte) (int, bool, error) {
	line, n, err := p.line(b, http1MaxHeader)
	if line == nil || err != nil {
		return 0, err == nil, err
	}
	if len(line) == 0 {
		p.state = pushDone
		return n, false, nil
	}
	if p.trailer, err = trailerLine(line, p.trailer); err != nil {
		return 0, false, err
	}
	return n, false, nil
}

// line finds the LF-terminated line at the start of b, of at most limit
// bytes with its LF, as respReader.line would read it: it returns the line
// without its CRLF or LF (not nil, even when empty) and its length with
// them, or a nil line while b has no LF yet.
func (p *pushParser) line(b []byte, limit int) (line []byte, n int, err error) {
	b = b[:min(len(b), limit)]
	i := bytes.IndexByte(b[p.scanned:], '\n')
	if i < 0 {
		// respReader refuses a bad chunk-size line before its end.
		if limit == http1MaxLine && !chunkSizePrefix(b) {
			return nil, 0, errChunk
		}
		if len(b) == limit {
			err := errHeadersTooLarge
			if limit == http1MaxLine {
				err = errLineTooLong
			}
			_, _, e := p.failAt(limit, err)
			return nil, 0, e
		}
		p.scanned = len(b)
		return nil, 0, nil
	}
	n = p.scanned + i + 1
	p.scanned = 0
	line, _ = nextLine(b[:n])
	return line, n, nil
}
