package sockets

import (
	"net"
	"strings"
	"syscall"
	"testing"
)

// Out of ephemeral ports, the error says what to do about it.
func TestDialErrorWords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      DialErrors
		op     string
		errno  syscall.Errno
		want   string // "" for no words beyond the errno's
		errnoS string
	}{
		{"out of ports, one source", DialErrors{Addr: "127.0.0.1:80"}, "connect", syscall.EADDRNOTAVAIL,
			"spread the connections over several source addresses with local_ips", "cannot assign requested address"},
		{"out of ports, local_ips", DialErrors{Addr: "127.0.0.1:80", Spread: true}, "connect", syscall.EADDRNOTAVAIL,
			"add addresses to local_ips", "cannot assign requested address"},
		{"a source not on this machine", DialErrors{Addr: "127.0.0.1:80", Spread: true}, "bind", syscall.EADDRNOTAVAIL,
			"not one of this machine's", "bind: cannot assign requested address"},
		{"refused", DialErrors{Addr: "127.0.0.1:80"}, "connect", syscall.ECONNREFUSED, "", "connection refused"},
		{"on an open connection", DialErrors{Addr: "127.0.0.1:80", OnConn: true}, "read", syscall.EADDRNOTAVAIL, "", "read tcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.d.Of(tc.op, tc.errno)
			msg := err.Error()
			if !strings.Contains(msg, tc.errnoS) || !strings.Contains(msg, "127.0.0.1:80") {
				t.Errorf("%q does not name the address and %q", msg, tc.errnoS)
			}
			if tc.want == "" && strings.Contains(msg, "(") || tc.want != "" && !strings.Contains(msg, tc.want) {
				t.Errorf("%q, want words %q", msg, tc.want)
			}
			if errno, ok := ErrnoOf(err); !ok || errno != tc.errno {
				t.Errorf("the errno is lost: %v %v", errno, ok)
			}
			if again := tc.d.Of(tc.op, tc.errno); again != err {
				t.Error("the error is made again")
			}
		})
	}
	var d DialErrors
	dialed := &net.OpError{Op: "dial", Net: "tcp", Err: &net.AddrError{Err: "x"}}
	if d.Worded(dialed) != dialed {
		t.Error("net.Dialer's error without an errno is not kept")
	}
	if w := d.Worded(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.EADDRNOTAVAIL}); !strings.Contains(w.Error(), "local_ips") {
		t.Errorf("net.Dialer's EADDRNOTAVAIL: %q has no words", w)
	}
}
