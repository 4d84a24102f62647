package http1

import (
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/loadgate/loadgate/protocols"
)

// Response buffers of the default size are shared: a connection holds one
// only while it reads and parses a response, not while it waits for one.
// Ten thousand kept-alive connections then need as many buffers as
// responses are being parsed at once, a handful, instead of ten thousand:
// 40 MiB less at 4 KiB each. A buffer that grew for a large response stays
// with its connection.
var bufPool = sync.Pool{New: func() any { return new([http1BufSize]byte) }}

// getBuf takes a default-size buffer from the pool. The pool holds array
// pointers, which go in and out of an interface without an allocation.
func getBuf() []byte { return bufPool.Get().(*[http1BufSize]byte)[:] }

// release hands the buffer back to the pool when no unparsed byte is left
// in it and it has its default size; the next read takes one again.
func (p *respReader) release() {
	if p.buf == nil || p.r != p.w || len(p.buf) != http1BufSize {
		return
	}
	bufPool.Put((*[http1BufSize]byte)(p.buf))
	p.buf, p.r, p.w = nil, 0, 0
}

// ensureBuf gives the reader a buffer if it has none.
func (p *respReader) ensureBuf() {
	if p.buf == nil {
		p.buf = getBuf()
		p.r, p.w = 0, 0
	}
}

// useRaw makes the reader wait for its socket's bytes through rc, without
// holding a buffer, when it has none; nil reads from src as usual.
func (p *respReader) useRaw(rc syscall.RawConn) {
	p.rc = rc
	if rc != nil && p.rawStep == nil {
		p.rawStep = p.pooledStep // bound once: a method value per read would allocate
	}
}

// fillPooled reads once from the socket into a buffer taken from the pool
// only once the socket has something to read. As conn.Read does, it tries
// the read before it waits, so nothing that arrived earlier is missed.
func (p *respReader) fillPooled() error {
	p.rawN, p.rawErr = 0, nil
	err := p.rc.Read(p.rawStep)
	for err != nil && early(err, p.rearm) {
		err = p.rc.Read(p.rawStep)
	}
	if err != nil {
		return err
	}
	switch {
	case p.rawErr != nil:
		return p.rawErr
	case p.rawN == 0:
		return io.EOF
	}
	p.filled(p.rawN)
	return nil
}

// pooledStep runs with the socket's read lock held: it reads into a pooled
// buffer, which goes back to the pool when there was nothing to read yet.
func (p *respReader) pooledStep(fd uintptr) bool {
	p.ensureBuf()
	n, err := protocols.RawRead(fd, p.buf)
	switch {
	case err == syscall.EAGAIN:
		p.release()
		return false
	case err != nil:
		p.rawErr = os.NewSyscallError("read", err)
	default:
		p.rawN = n
	}
	return true
}
