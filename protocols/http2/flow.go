package http2

import (
	"bytes"
	"context"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/net/http2/hpack"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpflow"
)

// stepTransport sends the steps of one virtual user of a flow target as
// streams on the case's shared connections: the flow client (package
// httpflow) renders each step, this encodes its header block and runs it as
// a plain request does.
type stepTransport struct {
	pool     *Pool
	worker   int
	owned    bool // the pool is the user's own, closed with it
	timeout  time.Duration
	st       *stream
	enc      *hpack.Encoder
	block    bytes.Buffer
	req      request
	classify map[*origin]func(error) protocols.ErrorKind
}

var _ httpflow.StepTransport = (*stepTransport)(nil)

func newStepTransport(p *Pool, worker int, owned bool) *stepTransport {
	t := &stepTransport{pool: p, worker: worker, owned: owned, timeout: p.h.Timeout, st: newStream(),
		classify: map[*origin]func(error) protocols.ErrorKind{}}
	t.enc = hpack.NewEncoder(&t.block)
	for _, o := range p.origins {
		t.classify[o] = func(err error) protocols.ErrorKind { return classify(err, o) }
	}
	return t
}

// Exchange sends step r as one stream and reads its whole response.
func (t *stepTransport) Exchange(ctx context.Context, r *httpflow.StepRequest, out *protocols.Outcome) {
	o := t.pool.byOrigin[r.Origin]
	if o == nil {
		*out = protocols.Outcome{Kind: protocols.KindOther, Err: fmt.Errorf("http/2: no connection to %s", r.Origin)}
		return
	}
	t.encode(r, o)
	t.req = request{origin: o, slot: o.slots[t.worker%len(o.slots)], block: t.block.Bytes(), body: r.Body,
		classify: t.classify[o], keepHead: r.Head != nil}
	roundTrip(ctx, t.pool, t.st, t.timeout, &t.req, r.Check, r.Head, out)
}

// encode writes r's header block. Every field but a method or a scheme of
// the static table is a literal never indexed, as in headerBlock: the
// encoder's dynamic table stays empty, so the block goes as it is over
// any of the origin's connections, and values that change from request
// to request (placeholders) are never kept by the server's decoder.
func (t *stepTransport) encode(r *httpflow.StepRequest, o *origin) {
	t.block.Reset()
	scheme := "http"
	if o.tls != nil {
		scheme = "https"
	}
	static := r.Method == "GET" || r.Method == "POST"
	t.field(":method", r.Method, !static)
	t.field(":scheme", scheme, false)
	t.field(":authority", r.Authority, true)
	t.field(":path", view(r.Path), true)
	for i := range r.Headers {
		h := &r.Headers[i]
		t.field(h.Name, view(h.Value), true)
	}
}

func (t *stepTransport) field(name, value string, sensitive bool) {
	// Writing to a bytes.Buffer does not fail.
	_ = t.enc.WriteField(hpack.HeaderField{Name: name, Value: value, Sensitive: sensitive})
}

// view is b as a string, without a copy: the encoder copies it out.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Close closes the user's own pool, if it has one; the case's shared
// connections close with the case.
func (t *stepTransport) Close() error {
	if t.owned {
		return t.pool.Close()
	}
	return nil
}
