package http1

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// A socket connected to its own address reached no server.
func TestHTTP1SelfConnected(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	other := newSocketAddr("127.0.0.1", strconv.Itoa(port))
	l.Close()
	// Bound to the port it connects to, a socket meets itself in a
	// simultaneous open: what the kernel may do when it picks that port.
	self := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}
	d := net.Dialer{LocalAddr: self}
	c, err := d.Dial("tcp", self.String())
	if err != nil {
		t.Skipf("no self-connection: %v", err)
	}
	defer c.Close()
	rc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if !selfConnected(rc, other) {
		t.Error("a socket connected to itself is not reported")
	}
	if selfConnected(rc, newSocketAddr("127.0.0.1", strconv.Itoa(port+1))) {
		t.Error("a socket connected elsewhere is reported")
	}
}

func TestHTTP1SocketAddr(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"::ffff:127.0.0.1", true},
		{"localhost", false}, {"fe80::1%eth0", false},
	} {
		if got := newSocketAddr(tc.host, "80") != nil; got != tc.want {
			t.Errorf("%s: dialled with a socket %v, want %v", tc.host, got, tc.want)
		}
	}
	if a := newSocketAddr("::ffff:127.0.0.1", "80"); a == nil || a.family != syscall.AF_INET {
		t.Errorf("an IPv4-mapped address is not dialled over IPv4: %+v", a)
	}
}

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
