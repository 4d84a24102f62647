package http1

import (
	"context"
	"errors"
	"net/url"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

// flowWire is the lean client's side of a flow (httpflow.Wire): one
// connection per origin the user's steps reach, each a lean client with no
// request of its own, sending the steps as the flow client renders them.
type flowWire struct {
	target  *scenarios.Target
	worker  int            // whose flow it is, for the source address it starts from
	conns   []*http1Client // in order of first use
	origins map[string]int // index into conns
	req     http1Request   // the step being sent
	buf     []byte         // req's wire, reused from step to step
}

var _ httpflow.Wire = (*flowWire)(nil)

func newFlowWire(t *scenarios.Target, worker int) *flowWire {
	return &flowWire{target: t, worker: worker, origins: map[string]int{}}
}

// Route opens a connection slot for origin when no step reached it yet;
// a proxy's route is the origin's, whether or not its slot is new.
func (w *flowWire) Route(origin string, u *url.URL) (httpflow.WireRoute, error) {
	var route *proxyRoute
	p, err := proxyFor(w.target.HTTP, u)
	if err != nil {
		return httpflow.WireRoute{}, err
	}
	if p != nil {
		if route, err = newProxyRoute(p); err != nil {
			return httpflow.WireRoute{}, err
		}
	}
	conn, ok := w.origins[origin]
	if !ok {
		hc, err := newHTTP1Conn(w.target, u, route, w.worker)
		if err != nil {
			return httpflow.WireRoute{}, err
		}
		conn = len(w.conns)
		w.origins[origin] = conn
		w.conns = append(w.conns, hc)
	}
	r := httpflow.WireRoute{Conn: conn}
	if route != nil && u.Scheme == "http" {
		r.Absolute, r.Auth = true, route.auth
	}
	return r, nil
}

// Exchange sends r on its origin's connection. The step's head is copied
// into the wire's own buffer, where a small body joins it (see withBody).
func (w *flowWire) Exchange(ctx context.Context, r *httpflow.WireRequest, out *protocols.Outcome) {
	conn := w.conns[r.Conn]
	conn.use(r.Expect)
	conn.rd.head = r.ResponseHead
	withBody(&w.req, append(w.buf[:0], r.Head...), r.Body)
	w.buf = w.req.wire
	w.req.head, w.req.close = r.IsHead, r.Close
	conn.exchange(ctx, &w.req, out)
}

// Close closes every connection.
func (w *flowWire) Close() error {
	var errs []error
	for _, hc := range w.conns {
		errs = append(errs, hc.Close())
	}
	return errors.Join(errs...)
}
