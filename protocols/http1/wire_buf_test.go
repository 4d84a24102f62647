package http1

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// TestHTTP1BufferBetweenRequests checks that a connection waiting for its
// next request holds no response buffer of the default size, the saving
// that keeps ten thousand connections small, and that a buffer grown for a
// large response stays with its connection.
func TestHTTP1BufferBetweenRequests(t *testing.T) {
	big := strings.Repeat("x", 3*http1BufSize)
	for _, tc := range []struct {
		name      string
		resp      string
		keepalive bool
		dialer    bool
		wantLen   int // of the buffer held between requests; 0: none
	}{
		{"kept alive", okHello, true, false, 0},
		{"kept alive, net.Dialer", okHello, true, true, 0},
		{"a new connection per request", okHello, false, false, 0},
		{"a large body", "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big, true, false, http1BodyBuf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := cannedServer(t, tc.resp)
			cl := newTestHTTP1Via(t, http1Target(url, func(h *scenarios.HTTPTarget) { h.Keepalive = tc.keepalive }), tc.dialer)
			for i := range 3 {
				var out protocols.Outcome
				cl.Do(context.Background(), 0, &out)
				if out.Kind != protocols.KindNone {
					t.Fatalf("request %d: %v %v", i, out.Kind, out.Err)
				}
				if len(cl.rd.buf) != tc.wantLen {
					t.Errorf("request %d: a buffer of %d bytes held between requests, want %d", i, len(cl.rd.buf), tc.wantLen)
				}
			}
		})
	}
}
