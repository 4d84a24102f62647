package http1

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

// bigBody is a body above maxInlineBody, of an odd size so that writes
// stop at no round offset.
func bigBody(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

// sameArray reports whether a and b start at the same byte: one is the
// other's bytes, not a copy.
func sameArray(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// captureTransport is a StepTransport that keeps the body of the last
// request it was given and answers 200.
type captureTransport struct{ body []byte }

func (c *captureTransport) Exchange(_ context.Context, r *httpflow.StepRequest, out *protocols.Outcome) {
	c.body = r.Body
	*out = protocols.Outcome{Status: 200}
}

func (*captureTransport) Close() error { return nil }

// A large body reaches every worker's request, every flow user's step and
// the event loop's connections as the scenario's own bytes (the same
// backing array), never as a copy; a small one is copied into the wire so
// that the request leaves in one write.
func TestLargeBodyIsShared(t *testing.T) {
	large := bigBody(maxInlineBody + 4093)
	small := []byte(`{"small":true}`)
	for _, tc := range []struct {
		name string
		// bodies makes the request of two workers (or users) from a target
		// whose request, or flow step, has body, and returns what each
		// would send apart from its wire, and each wire.
		bodies func(t *testing.T, body []byte) (apart [2][]byte, wires [2][]byte)
	}{
		{"lean client, two workers", func(t *testing.T, body []byte) (apart, wires [2][]byte) {
			tg := http1Target("http://127.0.0.1:1/up", func(h *scenarios.HTTPTarget) {
				h.Requests[0].Method, h.Requests[0].Body = "PUT", body
			})
			for w := range 2 {
				c := newTestWorker(t, tg, w)
				apart[w], wires[w] = c.reqs[0].body, c.reqs[0].wire
			}
			return apart, wires
		}},
		{"event loop, every connection", func(t *testing.T, body []byte) (apart, wires [2][]byte) {
			tg := http1Target("http://127.0.0.1:1/up", func(h *scenarios.HTTPTarget) {
				h.Requests[0].Method, h.Requests[0].Body = "PUT", body
			})
			lp, why := NewLoop(tg)
			if lp == nil {
				t.Skipf("no event loop: %s", why)
			}
			// The loop's connections all send l.reqs: one request, twice.
			r := lp.(*httpLoop).reqs[0]
			return [2][]byte{r.body, r.body}, [2][]byte{r.wire, r.wire}
		}},
		{"flow step, two users", func(t *testing.T, body []byte) (apart, wires [2][]byte) {
			tg := flowBodyTarget(body)
			for u := range 2 {
				// Nothing listens at the step's origin: the step fails
				// to connect, once the wire has made its request.
				c, w, err := newFlowUser(tg, u)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.Close() })
				c.Iterate(context.Background(), time.Now(), nopSink{})
				apart[u], wires[u] = w.req.body, w.req.wire
			}
			return apart, wires
		}},
		{"flow step over a step transport (HTTP/2), two users", func(t *testing.T, body []byte) (apart, wires [2][]byte) {
			tg := flowBodyTarget(body)
			for u := range 2 {
				tr := &captureTransport{}
				c, err := newFlowClient(tg, u, tr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.Close() })
				if r := c.Iterate(context.Background(), time.Now(), nopSink{}); r.Kind != protocols.KindNone {
					t.Fatalf("iteration failed: %+v", r)
				}
				// A transport frames the body itself: all of it is apart.
				apart[u] = tr.body
			}
			return apart, wires
		}},
	} {
		t.Run(tc.name+", large", func(t *testing.T) {
			apart, wires := tc.bodies(t, large)
			for i := range apart {
				if !sameArray(apart[i], large) || len(apart[i]) != len(large) {
					t.Errorf("request %d: body apart from the wire is not the scenario's bytes (%d bytes)", i, len(apart[i]))
				}
				if len(wires[i]) > 1024 {
					t.Errorf("request %d: the wire holds %d bytes: the body was copied into it", i, len(wires[i]))
				}
			}
		})
		t.Run(tc.name+", small", func(t *testing.T) {
			apart, wires := tc.bodies(t, small)
			for i := range apart {
				if wires[i] == nil {
					continue // a step transport: the body is never in a wire
				}
				if apart[i] != nil || !bytes.HasSuffix(wires[i], small) {
					t.Errorf("request %d: %d bytes apart, wire %q: want the body at the end of the wire", i, len(apart[i]), wires[i])
				}
			}
		})
	}
}

// flowBodyTarget is a flow target of one PUT step whose body is body.
func flowBodyTarget(body []byte) *scenarios.Target {
	st := step(nil, "up", "PUT", "http://127.0.0.1:1/up", 200)
	if len(body) > 0 {
		st.Body = scenarios.Template{Parts: []scenarios.TemplatePart{{Kind: scenarios.PartLiteral, Literal: body}}}
	}
	return benchTarget("http://127.0.0.1:1/", &scenarios.Flow{Steps: []scenarios.Step{st}})
}

// newTestWorker is newTestHTTP1 for worker w.
func newTestWorker(t *testing.T, tg *scenarios.Target, w int) *http1Client {
	t.Helper()
	cl, err := newHTTP1Client(tg, w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl.(*http1Client)
}

// trickleWriter takes at most max bytes per Write, failing a Write it cut
// short, as a socket whose deadline fired mid-write does.
type trickleWriter struct {
	max int
	got []byte
}

var errTrickle = errors.New("short write")

func (w *trickleWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.max)
	w.got = append(w.got, p[:n]...)
	if n < len(p) {
		return n, errTrickle
	}
	return n, nil
}

// A request whose body is apart goes out whole and in order however the
// writes are cut: within the wire, at its end, within the body.
func TestVecWriterResumes(t *testing.T) {
	wire, body := []byte("PUT /up HTTP/1.1\r\nContent-Length: 10\r\n\r\n"), []byte("0123456789")
	for _, tc := range []struct {
		name string
		max  int
		body []byte
	}{
		{"one byte per write", 1, body},
		{"cuts inside the wire", 7, body},
		{"a cut at the wire's end", len(wire), body},
		{"cuts across the boundary", len(wire) + 3, body},
		{"all at once", 1 << 10, body},
		{"no body apart", 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := http1Request{wire: wire, body: tc.body}
			w := &trickleWriter{max: tc.max}
			var v vecWriter
			for off, calls := 0, 0; off < r.size(); calls++ {
				if calls > r.size() {
					t.Fatalf("no progress at byte %d", off)
				}
				n, err := v.write(w, &r, off)
				if err != nil && err != errTrickle {
					t.Fatal(err)
				}
				off += n
			}
			if want := string(wire) + string(tc.body); string(w.got) != want {
				t.Errorf("wrote %q, want %q", w.got, want)
			}
		})
	}
}

// A large body arrives whole, request after request on a kept-alive
// connection, from the lean client (both ways of dialling) and a flow
// step (the event loop: TestLoopSendsLargeBody).
func TestLargeBodyReachesTheServer(t *testing.T) {
	body := bigBody(3<<20 + 7) // more than a loopback socket takes at once
	srv, bad := newBodyServer(t, body)
	plain := http1Target(srv.URL+"/up", func(h *scenarios.HTTPTarget) {
		h.Requests[0].Method, h.Requests[0].Body = "PUT", body
	})
	const n = 3
	for _, d := range dialPaths {
		t.Run("lean client via "+d.name, func(t *testing.T) {
			cl := newTestHTTP1Via(t, plain, d.dialer)
			for i := range n {
				var out protocols.Outcome
				cl.Do(context.Background(), 0, &out)
				if out.Kind != protocols.KindNone || out.Status != 200 || out.BytesSent != int64(cl.reqs[0].size()) {
					t.Fatalf("request %d: kind %v status %d, %d bytes sent of %d (%v)", i, out.Kind, out.Status, out.BytesSent, cl.reqs[0].size(), out.Err)
				}
			}
		})
	}
	t.Run("flow step", func(t *testing.T) {
		tg := flowBodyTarget(body)
		tg.HTTP.Flow.Steps[0].URL = tpl(nil, srv.URL+"/up")
		c, err := newFlowClient(tg, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for i := range n {
			if r := c.Iterate(context.Background(), time.Now(), nopSink{}); r.Kind != protocols.KindNone {
				t.Fatalf("iteration %d: %v", i, r.Kind)
			}
		}
	})
	if got, want := srv.requests.Load(), int64(3*n); got != want || bad.Load() != 0 {
		t.Errorf("the server saw %d bodies, want %d; %d of them not the one sent", got, want, bad.Load())
	}
}

// newBodyServer answers 200 to a request whose body is want, 400 to any
// other, which it also counts in bad.
func newBodyServer(t *testing.T, want []byte) (*countingServer, *atomic.Int64) {
	bad := new(atomic.Int64)
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		got, err := io.ReadAll(r.Body)
		if err != nil || !bytes.Equal(got, want) {
			bad.Add(1)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		hello(w, r)
	})
	return srv, bad
}
