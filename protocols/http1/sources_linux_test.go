//go:build linux

package http1

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// sourceServer counts the requests it served by the client's address.
type sourceServer struct {
	*countingServer
	mu   sync.Mutex
	from map[string]int
}

func newSourceServer(t *testing.T) *sourceServer {
	s := &sourceServer{from: map[string]int{}}
	s.countingServer = newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		s.mu.Lock()
		s.from[host]++
		s.mu.Unlock()
		hello(w, r)
	})
	return s
}

func addrs(s ...string) []netip.Addr {
	var out []netip.Addr
	for _, a := range s {
		out = append(out, netip.MustParseAddr(a))
	}
	return out
}

// withSources is a target of url whose connections are each new and come
// from ips.
func withSources(url string, ips ...string) *scenarios.Target {
	return http1Target(url, func(h *scenarios.HTTPTarget) {
		h.Keepalive = false
		h.LocalIPs = addrs(ips...)
	})
}

// The loop's connections come from local_ips in turn, each as often.
func TestLoopLocalIPs(t *testing.T) {
	srv := newSourceServer(t)
	var lt loopTally
	runLoop(t, withSources(srv.URL+"/", "127.0.0.2", "127.0.0.3", "127.0.0.4"), lt.job(2, 30, 0))
	if lt.kinds[protocols.KindNone] != 30 {
		t.Fatalf("kinds %v (errors %q), want 30 successes", lt.kinds, first(lt.errs))
	}
	for _, a := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		if srv.from[a] != 10 {
			t.Errorf("requests by source address %v, want 10 from each of local_ips", srv.from)
		}
	}
}

// A worker's connections come from local_ips in turn, starting from the
// worker's own, through either dialler.
func TestClientLocalIPs(t *testing.T) {
	for _, p := range dialPaths {
		t.Run(p.name, func(t *testing.T) {
			srv := newSourceServer(t)
			tg := withSources(srv.URL+"/", "127.0.0.2", "127.0.0.3")
			cl, err := newHTTP1Client(tg, 1)
			if err != nil {
				t.Fatal(err)
			}
			c := cl.(*http1Client)
			defer c.Close()
			if p.dialer {
				c.sock = nil
			}
			var out protocols.Outcome
			c.Do(context.Background(), 0, &out)
			if out.Kind != protocols.KindNone || srv.from["127.0.0.3"] != 1 {
				t.Fatalf("first request: %v %v from %v; worker 1 starts on the second address", out.Kind, out.Err, srv.from)
			}
			for range 5 {
				if c.Do(context.Background(), 0, &out); out.Kind != protocols.KindNone {
					t.Fatalf("%v %v", out.Kind, out.Err)
				}
			}
			if srv.from["127.0.0.2"] != 3 || srv.from["127.0.0.3"] != 3 {
				t.Errorf("requests by source address %v, want 3 from each", srv.from)
			}
		})
	}
}

// A source address the machine does not have fails every connection,
// saying so, on the loop as on a worker.
func TestLocalIPsNotOnThisMachine(t *testing.T) {
	srv := newSourceServer(t)
	tg := withSources(srv.URL+"/", "192.0.2.1") // TEST-NET-1, never assigned
	var lt loopTally
	runLoop(t, tg, lt.job(1, 3, 0))
	const words = "not one of this machine's"
	if lt.kinds[protocols.KindNone] != 0 || !strings.Contains(first(lt.errs), words) {
		t.Errorf("loop: kinds %v, error %q; want failures saying %q", lt.kinds, first(lt.errs), words)
	}
	cl := newTestHTTP1(t, tg)
	var out protocols.Outcome
	cl.Do(context.Background(), 0, &out)
	if out.Kind == protocols.KindNone || out.Err == nil || !strings.Contains(out.Err.Error(), words) {
		t.Errorf("worker: %v %v; want a failure saying %q", out.Kind, out.Err, words)
	}
	if srv.requests.Load() != 0 {
		t.Errorf("the server served %d requests", srv.requests.Load())
	}
}

// net/http's connections, for what the lean client does not do, come
// from local_ips in turn too.
func TestNetHTTPLocalIPs(t *testing.T) {
	srv := newSourceServer(t)
	cl, err := newNetHTTPClient(withSources(srv.URL+"/", "127.0.0.2", "127.0.0.3"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out protocols.Outcome
	for range 4 {
		if cl.Do(context.Background(), 0, &out); out.Kind != protocols.KindNone {
			t.Fatalf("%v %v", out.Kind, out.Err)
		}
	}
	if srv.from["127.0.0.2"] != 2 || srv.from["127.0.0.3"] != 2 {
		t.Errorf("requests by source address %v, want 2 from each", srv.from)
	}
}
