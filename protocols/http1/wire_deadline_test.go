package http1

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// TestHTTP1LazyDeadline checks that a kept-alive connection's deadline,
// left from an earlier request rather than set for each one, never decides
// a request's fate: one that fires before the request's own deadline lets
// the request go on, and the request's own still times it out.
func TestHTTP1LazyDeadline(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		delay   time.Duration // of the second response
		want    protocols.ErrorKind
	}{
		{"an early deadline is not the request's", 5 * time.Second, 200 * time.Millisecond, protocols.KindNone},
		{"the request's own deadline still counts", 100 * time.Millisecond, 400 * time.Millisecond, protocols.KindTimeout},
	} {
		for _, dp := range dialPaths {
			t.Run(tc.name+"/"+dp.name, func(t *testing.T) {
				var served atomic.Int64
				srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
					if served.Add(1) == 2 {
						time.Sleep(tc.delay)
					}
					hello(w, r)
				})
				cl := newTestHTTP1Via(t, http1Target(srv.URL, func(h *scenarios.HTTPTarget) { h.Timeout = tc.timeout }), dp.dialer)
				checkSecondRequest(t, cl, tc.want)
			})
		}
	}
}
