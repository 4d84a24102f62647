package http1

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// TestTLSSessionResumption checks that the workers of a target resume the
// TLS sessions of its earlier connections unless tls: resume: false asks
// for a full handshake on every connection. Each worker opens a new
// connection per request, one worker after the other.
func TestTLSSessionResumption(t *testing.T) {
	for _, tc := range []struct {
		name        string
		noResume    bool
		wantResumed int64
	}{
		{"resume by default", false, 5}, // all but the very first handshake
		{"resume: false", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var full, resumed atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
			srv.TLS = &tls.Config{VerifyConnection: func(cs tls.ConnectionState) error {
				if cs.DidResume {
					resumed.Add(1)
				} else {
					full.Add(1)
				}
				return nil
			}}
			srv.StartTLS()
			t.Cleanup(srv.Close)
			tg := http1Target(srv.URL, func(h *scenarios.HTTPTarget) {
				h.Keepalive = false
				h.TLS = scenarios.TLS{InsecureSkipVerify: true, NoResume: tc.noResume}
				if !tc.noResume {
					h.TLS.Sessions = scenarios.NewSessionCache() // as the scenario parser makes it
				}
			})
			for w := range 2 {
				cl, err := newHTTP1Client(tg, w)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 3 {
					var out protocols.Outcome
					cl.Do(context.Background(), 0, &out)
					if out.Kind != protocols.KindNone || out.Connect <= 0 {
						t.Fatalf("worker %d, request %d: kind %v, connect %v; want a new connection and success", w, i, out.Kind, out.Connect)
					}
				}
				_ = cl.Close()
			}
			if got := resumed.Load(); got != tc.wantResumed || full.Load()+got != 6 {
				t.Errorf("%d full and %d resumed handshakes, want %d resumed of 6", full.Load(), got, tc.wantResumed)
			}
		})
	}
}

// TestTLSKeyExchange checks which key exchange a server that supports the
// hybrid post-quantum one ends up with: X25519 by default, as with wrk,
// and X25519MLKEM768 with post_quantum: true.
func TestTLSKeyExchange(t *testing.T) {
	for _, tc := range []struct {
		name        string
		postQuantum bool
		want        tls.CurveID
	}{
		{"classical by default", false, tls.X25519},
		{"post_quantum: true", true, tls.X25519MLKEM768},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got atomic.Uint32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
			srv.TLS = &tls.Config{VerifyConnection: func(cs tls.ConnectionState) error {
				got.Store(uint32(cs.CurveID))
				return nil
			}}
			srv.StartTLS()
			t.Cleanup(srv.Close)
			tg := http1Target(srv.URL, func(h *scenarios.HTTPTarget) {
				h.TLS = scenarios.TLS{InsecureSkipVerify: true, PostQuantum: tc.postQuantum}
			})
			cl, err := newHTTP1Client(tg, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			var out protocols.Outcome
			cl.Do(context.Background(), 0, &out)
			if out.Kind != protocols.KindNone {
				t.Fatalf("kind %v, err %v; want success", out.Kind, out.Err)
			}
			if g := tls.CurveID(got.Load()); g != tc.want {
				t.Errorf("key exchange %v, want %v", g, tc.want)
			}
		})
	}
}
