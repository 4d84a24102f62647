//go:build linux

package sockets

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// A socket connected to its own address reached no server.
func TestSelfConnected(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	other := NewAddr("127.0.0.1", strconv.Itoa(port))
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
	if !SelfConnected(rc, other) {
		t.Error("a socket connected to itself is not reported")
	}
	if SelfConnected(rc, NewAddr("127.0.0.1", strconv.Itoa(port+1))) {
		t.Error("a socket connected elsewhere is reported")
	}
}

func TestNewAddr(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"::ffff:127.0.0.1", true},
		{"localhost", false}, {"fe80::1%eth0", false},
	} {
		if got := NewAddr(tc.host, "80") != nil; got != tc.want {
			t.Errorf("%s: dialled with a socket %v, want %v", tc.host, got, tc.want)
		}
	}
	if a := NewAddr("::ffff:127.0.0.1", "80"); a == nil || a.family != syscall.AF_INET {
		t.Errorf("an IPv4-mapped address is not dialled over IPv4: %+v", a)
	}
}
