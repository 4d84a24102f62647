package http2

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/http2/hpack"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

func flowTarget(url string) *scenarios.Target {
	tg := h2Target(url, 1)
	tg.HTTP.Flow = &scenarios.Flow{Steps: []scenarios.Step{{Name: "a", URL: scenarios.Template{
		Parts: []scenarios.TemplatePart{{Kind: scenarios.PartLiteral, Literal: []byte(url + "/a")}}}}}}
	return tg
}

// A step's header block references no dynamic table entry, so that it
// goes over any connection, and its values, which placeholders change
// from request to request, are literals never indexed.
func TestStepBlockIsStatic(t *testing.T) {
	p, err := NewPool(flowTarget("https://127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	tr := newStepTransport(p, 0, true)
	defer tr.Close()
	for _, tc := range []struct {
		method, token string
		body          bool
	}{{"GET", "one", false}, {"POST", "two", true}, {"PATCH", "three", true}} {
		r := &httpflow.StepRequest{Origin: "https://127.0.0.1:1", Method: tc.method, Authority: "api", Path: []byte("/items/" + tc.token),
			Headers: []httpflow.StepHeader{{Name: "authorization", Value: []byte("Bearer " + tc.token)}, {Name: "user-agent", Value: []byte("loadgate")}}}
		tr.encode(r, p.origins[0])
		// A fresh decoder has an empty dynamic table: decoding fails on
		// any reference to an entry of another block.
		fields, err := hpack.NewDecoder(4096, nil).DecodeFull(tr.block.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", tc.method, err)
		}
		want := []string{":method=" + tc.method, ":scheme=https", ":authority=api", ":path=/items/" + tc.token,
			"authorization=Bearer " + tc.token, "user-agent=loadgate"}
		if len(fields) != len(want) {
			t.Fatalf("%s: fields %v, want %v", tc.method, fields, want)
		}
		for i, f := range fields {
			if got := f.Name + "=" + f.Value; got != want[i] {
				t.Errorf("%s: field %d = %s, want %s", tc.method, i, got, want[i])
			}
			static := f.Name == ":scheme" || (f.Name == ":method" && tc.method != "PATCH")
			if f.Sensitive == static {
				t.Errorf("%s: %s never indexed = %v, want %v", tc.method, f.Name, f.Sensitive, !static)
			}
		}
	}
}

// A step that reads headers gets the final response's header fields
// after a status line, as the flow client's extractions expect; one that
// does not gets none, on the same connection.
func TestStepTransportKeepsHead(t *testing.T) {
	for _, tlsOn := range []bool{false, true} {
		srv := newH2Server(t, tlsOn, func(w http.ResponseWriter, r *http.Request) {
			http.SetCookie(w, &http.Cookie{Name: "a", Value: "1"})
			http.SetCookie(w, &http.Cookie{Name: "b", Value: "2"})
			w.Header().Set("Location", "/orders/"+r.Header.Get("X-Id"))
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte("made"))
		})
		tg := flowTarget(srv.URL)
		p, err := NewPool(tg)
		if err != nil {
			t.Fatal(err)
		}
		tr := newStepTransport(p, 0, true)
		check := httpcheck.NewResponseCheck(tg.HTTP)
		for _, keep := range []bool{true, false, true} {
			var head []byte
			r := &httpflow.StepRequest{Origin: srv.URL, Method: "GET", Authority: strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://"),
				Path: []byte("/a"), Headers: []httpflow.StepHeader{{Name: "x-id", Value: []byte("7")}}, Check: check}
			if keep {
				r.Head = &head
			}
			var out protocols.Outcome
			tr.Exchange(context.Background(), r, &out)
			if out.Kind != protocols.KindNone || out.Status != 201 || out.BytesReceived == 0 {
				t.Fatalf("tls=%v keep=%v: %+v", tlsOn, keep, out)
			}
			h := string(head)
			switch {
			case !keep && h != "":
				t.Errorf("tls=%v: a step that reads no header got %q", tlsOn, h)
			case keep && (!strings.HasPrefix(h, "HTTP/2 201\r\n") || !strings.Contains(h, "location: /orders/7\r\n") ||
				!strings.Contains(h, "set-cookie: a=1\r\n") || !strings.Contains(h, "set-cookie: b=2\r\n")):
				t.Errorf("tls=%v: head %q, want the status line, location and both set-cookie fields", tlsOn, h)
			}
		}
		if err := tr.Close(); err != nil {
			t.Error(err)
		}
	}
}
