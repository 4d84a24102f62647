package http1

import (
	"bytes"
	"io"
	"strings"
	"syscall"

	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// Sizes of a worker's response buffer, in bytes. It starts small, so that
// ten thousand connections stay cheap: most responses fit whole in it. It
// grows only when a response needs it: while a header block or a trailer
// line does not fit, up to http1MaxHeader, and to http1BodyBuf for a body
// longer than the buffer, so that large bodies take few reads. Bodies stream
// through it whatever their size, and it never shrinks.
const (
	http1BufSize   = 4 << 10
	http1BodyBuf   = 16 << 10
	http1MaxHeader = httpcheck.MaxHeaderBytes
	// http1MaxLine bounds a chunk-size line (extensions included), as
	// net/http does, so a server cannot make the client buffer without end.
	http1MaxLine = 4 << 10
	// http1MaxInterim bounds the 1xx responses before the final one.
	http1MaxInterim = 8
)

// http1Error is a response the client refuses. Constants of this type are
// errors that cost no allocation when returned.
type http1Error string

func (e http1Error) Error() string { return "http/1.1 response: " + string(e) }

// errBodyTooLarge is the one error of the parser that is not a protocol
// error: the response may be well formed, only longer than max_body.
var errBodyTooLarge = httpcheck.ErrBodyTooLarge

// Every http1Error is a protocol error.
const (
	errHeadersTooLarge  http1Error = "headers too large"
	errNotHTTP          http1Error = "the reply is not HTTP/1.x"
	errStatusLine       http1Error = "malformed status line"
	errHeaderLine       http1Error = "malformed header line"
	errContentLength    http1Error = "malformed or conflicting Content-Length"
	errTransferEncoding http1Error = "unsupported Transfer-Encoding"
	errChunk            http1Error = "malformed chunked encoding"
	errLineTooLong      http1Error = "chunk line too long"
	errTooManyInterim   http1Error = "too many 1xx responses"
	errSwitching        http1Error = "unrequested 101 Switching Protocols"
	// errUnasked: a second response to one request, or bytes on a kept-alive
	// connection while no request was out on it (see peekIdle).
	errUnasked http1Error = "the server sent bytes no request asked for"
)

// response is what the parser learned about one response.
type response struct {
	status  int
	bodyLen int64 // bytes of body (chunk framing excluded)
	wire    int64 // bytes of the stream this response took, 1xx and framing included
	close   bool  // the connection cannot carry another request
}

// respReader parses HTTP/1.1 responses from a stream into one reusable
// buffer. Whatever follows a response in the buffer stays there for the
// next one, so pipelined bytes are neither lost nor counted twice.
type respReader struct {
	src     io.Reader
	buf     []byte
	r, w    int   // unparsed bytes are buf[r:w]
	in      int64 // bytes read from src so far
	rerr    error // error returned by src alongside data, reported next
	maxBody int64
	body    httpcheck.BodyReader // reads the body when set; else it is discarded
	// head, when set, receives a copy of each response's header block, for
	// a flow's header extractions and cookies.
	head *[]byte
	// rc, when set, is the socket under src: reads with no buffer held wait
	// through it and take a buffer from the pool once there are bytes to
	// read (see fillPooled). rawStep, rawN and rawErr serve that read.
	rc      syscall.RawConn
	rawStep func(fd uintptr) bool
	rawN    int
	rawErr  error
	// rearm, when set, is asked whether a deadline that fired is early,
	// and the read goes on (see lazyDeadline).
	rearm func() bool

	// The body being read, piece by piece (see Next).
	mode    bodyMode
	left    int64     // bytes left of a fixed body or of the current chunk
	inChunk bool      // a chunk's data has been read: its CRLF comes next
	full    bool      // until close: the last read filled the buffer
	resp    *response // the response being read
}

// bodyMode is how the body being read ends.
type bodyMode uint8

const (
	bodyDone    bodyMode = iota // no more body
	bodyFixed                   // after left bytes
	bodyChunked                 // at the last chunk and its trailers
	bodyClose                   // when the server closes
)

// newRespReader makes a reader with no buffer yet: it takes one from the
// pool when it first reads.
func newRespReader(maxBody int64, body httpcheck.BodyReader) respReader {
	return respReader{maxBody: maxBody, body: body}
}

// reset drops buffered bytes, for a new connection, and hands a buffer of
// the default size back to the pool.
func (p *respReader) reset(src io.Reader) {
	p.src, p.r, p.w, p.rerr = src, 0, 0, nil
	p.release()
}

// pos is the stream offset of the first unparsed byte.
func (p *respReader) pos() int64 { return p.in - int64(p.w-p.r) }

// free returns the buffer's free end, once every buffered byte is parsed,
// for a read made outside fill; filled accounts for it.
func (p *respReader) free() []byte {
	p.ensureBuf()
	p.r, p.w = 0, 0
	return p.buf
}

func (p *respReader) filled(n int) {
	p.w += n
	p.in += int64(n)
}

// grow replaces the buffer with one of size bytes holding the unparsed
// bytes at its front. A worker's buffer grows a few times at most, from
// http1BufSize by doubling, so a kept-alive exchange allocates nothing.
func (p *respReader) grow(size int) {
	b := make([]byte, size)
	p.w = copy(b, p.buf[p.r:p.w])
	p.r = 0
	if len(p.buf) == http1BufSize {
		bufPool.Put((*[http1BufSize]byte)(p.buf))
	}
	p.buf = b
}

// growFor grows the buffer, by doubling up to http1BodyBuf, towards n bytes
// of body still to read.
func (p *respReader) growFor(n int64) {
	size := max(len(p.buf), http1BufSize)
	for int64(size) < n && size < http1BodyBuf {
		size *= 2
	}
	if size > len(p.buf) {
		p.grow(min(size, http1BodyBuf))
	}
}

// fill reads once from src into the free end of the buffer, moving unparsed
// bytes to the front first when the end is full.
func (p *respReader) fill() error {
	if p.r == p.w {
		p.r, p.w = 0, 0
	} else if p.w == len(p.buf) && p.r > 0 {
		p.w = copy(p.buf, p.buf[p.r:p.w])
		p.r = 0
	}
	if p.rerr != nil {
		err := p.rerr
		p.rerr = nil
		return err
	}
	if p.buf == nil && p.rc != nil {
		return p.fillPooled()
	}
	p.ensureBuf()
	for range httpcheck.MaxZeroReads {
		n, err := p.src.Read(p.buf[p.w:])
		p.w += n
		p.in += int64(n)
		if n > 0 {
			p.rerr = err
			return nil
		}
		if err != nil && !early(err, p.rearm) {
			return err
		}
	}
	return io.ErrNoProgress
}

// read parses one final response (skipping 1xx ones) and its body. head
// says the request was HEAD, so the response has no body. On error
// resp.wire counts every byte read for it, since the connection is dropped.
func (p *respReader) read(head bool, resp *response) error {
	start := p.pos()
	err := p.readResponse(head, resp)
	if err != nil {
		resp.wire = p.in - start
		if err == io.EOF && resp.wire > 0 {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	resp.wire = p.pos() - start
	return nil
}

func (p *respReader) readResponse(head bool, resp *response) error {
	*resp = response{}
	var h header
	for interim := 0; ; interim++ {
		if interim > http1MaxInterim {
			return errTooManyInterim
		}
		if err := p.readHeader(&h); err != nil {
			return err
		}
		if h.status >= 200 {
			break
		}
		if h.status == 101 {
			return errSwitching
		}
	}
	resp.status = h.status
	resp.close = h.close
	p.resp, p.inChunk, p.full = resp, false, false
	var err error
	if p.mode, p.left, err = framing(&h, head, p.maxBody); err != nil {
		return err
	}
	resp.close = resp.close || p.mode == bodyClose
	if p.body != nil {
		return p.body.Run(p)
	}
	for {
		if _, err := p.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// framing is how the body of a response with header h ends, and its
// length when that is fixed: no body after a HEAD request or with 204 and
// 304, chunks, Content-Length, or else the server's close. A length above
// maxBody is refused at once: no need to read what will be refused anyway.
func framing(h *header, head bool, maxBody int64) (bodyMode, int64, error) {
	switch {
	case head || h.status == 204 || h.status == 304:
		return bodyDone, 0, nil
	case h.chunked:
		return bodyChunked, 0, nil
	case h.length > maxBody:
		return bodyDone, 0, errBodyTooLarge
	case h.length >= 0:
		return bodyFixed, h.length, nil
	}
	return bodyClose, 0, nil
}

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
	name, value := line[:colon], trimOWS(line[colon+1:])
	switch {
	case equalFold(name, "content-length"):
		n, ok := parseLength(value)
		if !ok || (h.length >= 0 && h.length != n) {
			return true, errContentLength
		}
		h.length = n
	case equalFold(name, "transfer-encoding"):
		switch {
		case equalFold(value, "chunked") && !h.chunked:
			h.chunked = true
		case equalFold(value, "identity"):
		default:
			return true, errTransferEncoding
		}
	case equalFold(name, "connection"):
		for len(value) > 0 {
			var tok []byte
			if i := bytes.IndexByte(value, ','); i >= 0 {
				tok, value = trimOWS(value[:i]), value[i+1:]
			} else {
				tok, value = trimOWS(value), nil
			}
			switch {
			case equalFold(tok, "close"):
				h.close = true
			case equalFold(tok, "keep-alive"):
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

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold reports whether b equals the lower-case ASCII string s, ignoring
// the case of b.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
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
