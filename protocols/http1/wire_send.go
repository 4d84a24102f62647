package http1

import (
	"io"
	"net"
)

// maxInlineBody is the largest request body, in bytes, that is copied
// into the request's wire, so that the request leaves in one write (and
// the raw exchange, see rawExchange): a copy per worker of at most a
// page. A bigger body stays where the scenario holds it: a body_file is
// read once per target, and every worker, flow step and connection sends
// it from those same bytes, read-only, after the request's head, in the
// same writev where the connection allows it. 128 workers sending a
// 10 MiB body then hold one copy of it, not 128.
const maxInlineBody = 4 << 10

// withBody ends request r, whose head is in wire, with body: copied into
// wire when it is small, else kept apart, not copied.
func withBody(r *http1Request, wire, body []byte) {
	r.wire, r.body = wire, nil
	if len(body) > maxInlineBody {
		r.body = body
		return
	}
	r.wire = append(wire, body...)
}

// size is how many bytes r puts on the wire.
func (r *http1Request) size() int { return len(r.wire) + len(r.body) }

// vecWriter writes a request from a byte offset on: the rest of its wire
// and its body in one writev on a plain TCP connection (net.Buffers), one
// write each on any other. It belongs to one client, so that a request
// costs no allocation.
type vecWriter struct {
	arr  [2][]byte
	bufs net.Buffers
}

// write writes r from byte off on to w, once: it returns what w took,
// which may be less than the rest with a deadline's error.
func (v *vecWriter) write(w io.Writer, r *http1Request, off int) (int, error) {
	switch {
	case off >= len(r.wire):
		return w.Write(r.body[off-len(r.wire):])
	case r.body == nil:
		return w.Write(r.wire[off:])
	}
	// WriteTo consumes bufs; it is made again from arr every time.
	v.arr = [2][]byte{r.wire[off:], r.body}
	v.bufs = v.arr[:]
	n, err := v.bufs.WriteTo(w)
	v.arr, v.bufs = [2][]byte{}, nil
	return int(n), err
}

// write writes p from byte off on to the connection (see vecWriter).
func (c *http1Client) write(p *http1Request, off int) (int, error) {
	return c.vec.write(c.conn, p, off)
}
