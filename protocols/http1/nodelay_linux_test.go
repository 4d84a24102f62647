package http1

import (
	"context"
	"syscall"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// A socket keeps Nagle's algorithm only when every request fits one
// segment, where it can delay none.
func TestHTTP1NoDelay(t *testing.T) {
	url := cannedServer(t, okHello)
	for _, tc := range []struct {
		name        string
		body        int
		wantNoDelay bool
	}{
		{"a small GET", 0, false},
		{"a body over one segment", minSegment, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := newTestHTTP1(t, http1Target(url, func(h *scenarios.HTTPTarget) {
				h.Requests[0].Method = "POST"
				h.Requests[0].Body = make([]byte, tc.body)
			}))
			var out protocols.Outcome
			cl.Do(context.Background(), 0, &out)
			if out.Kind != protocols.KindNone {
				t.Fatalf("%v %v", out.Kind, out.Err)
			}
			var v int
			var gerr error
			if err := cl.raw.Conn().Control(func(fd uintptr) {
				v, gerr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
			}); err != nil || gerr != nil {
				t.Fatal(err, gerr)
			}
			if (v != 0) != tc.wantNoDelay {
				t.Errorf("TCP_NODELAY = %d, want %v", v, tc.wantNoDelay)
			}
		})
	}
}
