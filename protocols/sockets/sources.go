package sockets

import (
	"net"
	"net/netip"
)

// Sources are the source addresses a target's connections come from
// (local_ips), taken in turn: each gives the kernel its own ephemeral
// ports towards the target, so that more connections fit than one
// address's ports allow.
type Sources struct {
	v4, v6 []source
	next   int
}

// source is one address of sources, ready for both dialers.
type source struct {
	tcp  *net.TCPAddr // for net.Dialer
	sock *Addr        // for Open; nil where it does not dial
}

// NewSources makes the Sources of ips, whose first turn is start's (a
// worker's index, so that workers begin on different addresses); nil
// when ips is empty: the kernel then picks the address.
func NewSources(ips []netip.Addr, start int) *Sources {
	if len(ips) == 0 {
		return nil
	}
	s := &Sources{next: max(start, 0)}
	for _, ip := range ips {
		src := source{tcp: net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, 0)), sock: NewAddr(ip.String(), "0")}
		if ip.Is4() {
			s.v4 = append(s.v4, src)
		} else {
			s.v6 = append(s.v6, src)
		}
	}
	return s
}

// pick is the next source address for a connection to an IPv6 address
// (v6) or an IPv4 one. With none of that family, it is one of the other,
// which the kernel refuses to bind, and the dial fails saying so.
func (s *Sources) pick(v6 bool) *source {
	if s == nil {
		return nil
	}
	list := s.v4
	if v6 && len(s.v6) > 0 || len(s.v4) == 0 {
		list = s.v6
	}
	src := &list[s.next%len(list)]
	s.next++
	return src
}

// Socket is the next source of a connection to a, for Open.
func (s *Sources) Socket(a *Addr) *Addr {
	if s == nil {
		return nil
	}
	return s.pick(a.IsV6()).sock
}

// DialerAddr is the next source of a connection net.Dialer makes, which
// resolves a name to the addresses of the source's family; nil without
// sources.
func (s *Sources) DialerAddr() net.Addr {
	if s == nil {
		return nil
	}
	return s.pick(len(s.v4) == 0).tcp
}
