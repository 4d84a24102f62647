package http1

import (
	"io"
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
