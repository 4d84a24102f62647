package httpflow

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// captureWire is a Wire with one connection, which keeps the last request
// it was given and answers 200 without sending it.
type captureWire struct{ req WireRequest }

func (*captureWire) Route(string, *url.URL) (WireRoute, error) { return WireRoute{}, nil }

func (w *captureWire) Exchange(_ context.Context, r *WireRequest, out *protocols.Outcome) {
	w.req = *r
	*out = protocols.Outcome{Status: 200}
}

func (*captureWire) Close() error { return nil }

// sameArray reports whether a and b start at the same byte: one is the
// other's bytes, not a copy.
func sameArray(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// A flow body with placeholders is rendered into each user's own buffer,
// and that buffer is handed to the wire apart from the request's head: its
// literal bulk is copied once per request, not a second time into the
// head.
func TestTemplatedLargeBodyIsRenderedOnce(t *testing.T) {
	bulk := strings.Repeat("abcdefghijklmnopqrstuvwxyz", 200)
	body := scenarios.Template{Parts: []scenarios.TemplatePart{
		{Kind: scenarios.PartLiteral, Literal: []byte(`{"n":`)}, {Kind: scenarios.PartSeq},
		{Kind: scenarios.PartLiteral, Literal: []byte(`,"pad":"` + bulk + `"}`)}}}
	st := scenarios.Step{Name: "up", Method: "PUT", Body: body, Expect: scenarios.Expect{Status: []int{200}, Length: -1},
		URL: scenarios.Template{Parts: []scenarios.TemplatePart{{Kind: scenarios.PartLiteral, Literal: []byte("http://127.0.0.1:1/up")}}}}
	tg := &scenarios.Target{Name: "t", HTTP: &scenarios.HTTPTarget{Keepalive: true, Timeout: time.Second, MaxBody: 1 << 20,
		Expect: scenarios.Expect{Length: -1}, Flow: &scenarios.Flow{Steps: []scenarios.Step{st}}}}
	var rendered [2][]byte
	for u := range 2 {
		w := &captureWire{}
		c, err := newFlowClient(tg, u, nil, w)
		if err != nil {
			t.Fatal(err)
		}
		if r := c.Iterate(t.Context(), time.Now(), nopSink{}); r.Kind != protocols.KindNone {
			t.Fatalf("iteration %+v", r)
		}
		// The first Iterate draws {{seq}} for the setup, then the steps.
		want := `{"n":2,"pad":"` + bulk + `"}`
		switch got := w.req.Body; {
		case string(got) != want:
			t.Errorf("user %d: body %.40q…, want %.40q…", u, got, want)
		case !sameArray(got, c.body):
			t.Errorf("user %d: the body sent is not the user's rendering buffer", u)
		case len(w.req.Head) > 1024:
			t.Errorf("user %d: the head holds %d bytes: the body was copied into it", u, len(w.req.Head))
		}
		rendered[u] = w.req.Body
	}
	if sameArray(rendered[0], rendered[1]) {
		t.Error("two users render into one buffer")
	}
}

type nopSink struct{}

func (nopSink) Now() time.Time                            { return time.Now() }
func (nopSink) Sleep(context.Context, time.Duration) bool { return true }
func (nopSink) Step(context.Context, int, string, time.Duration, *protocols.Outcome) bool {
	return true
}
