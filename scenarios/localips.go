package scenarios

import (
	"fmt"
	"net/netip"
	"strings"
)

// MaxLocalIPs bounds how many source addresses local_ips may name: a
// /16 of IPv4, far more than the ports of one address times the
// connections a machine can hold would ever need.
const MaxLocalIPs = 1 << 16

// ParseLocalIPs reads the source addresses of a local_ips entry, written
// as k6's --local-ips is: addresses, ranges FIRST-LAST and CIDR prefixes,
// separated by commas. A prefix stands for its hosts: an IPv4 prefix
// shorter than /31 leaves out its network and broadcast addresses, which
// a host cannot bind. The addresses come out in the order written, at
// most limit of them in all.
func ParseLocalIPs(s string, limit int) ([]netip.Addr, error) {
	var out []netip.Addr
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty entry in %q (addresses, FIRST-LAST ranges and CIDR prefixes, separated by commas)", s)
		}
		first, last, err := localRange(part)
		if err != nil {
			return nil, err
		}
		for a := first; ; a = a.Next() {
			if len(out) == limit {
				return nil, fmt.Errorf("more than %d addresses", limit)
			}
			out = append(out, a)
			if a == last {
				break
			}
		}
	}
	return out, nil
}

// localRange is the first and last address of one entry of local_ips.
func localRange(part string) (first, last netip.Addr, err error) {
	if strings.Contains(part, "/") {
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return first, last, fmt.Errorf("%q is not a CIDR prefix such as 127.0.0.0/24", part)
		}
		if p.Addr().Is4In6() {
			return first, last, fmt.Errorf("%q: write an IPv4 prefix as such, 127.0.0.0/24", part)
		}
		if err := bindable(p.Addr(), part); err != nil {
			return first, last, err
		}
		first, last = p.Masked().Addr(), lastOf(p)
		if first.Is4() && p.Bits() < 31 {
			first, last = first.Next(), last.Prev()
		}
		return first, last, nil
	}
	a, b, isRange := strings.Cut(part, "-")
	if first, err = localAddr(strings.TrimSpace(a)); err != nil {
		return first, last, err
	}
	if !isRange {
		return first, first, nil
	}
	if last, err = localAddr(strings.TrimSpace(b)); err != nil {
		return first, last, err
	}
	switch {
	case first.Is4() != last.Is4():
		return first, last, fmt.Errorf("range %q mixes IPv4 and IPv6", part)
	case last.Less(first):
		return first, last, fmt.Errorf("range %q ends before it starts", part)
	}
	return first, last, nil
}

// localAddr is one address of local_ips.
func localAddr(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return a, fmt.Errorf("%q is not an IP address", s)
	}
	return a.Unmap(), bindable(a, s)
}

// bindable refuses the addresses no connection can come from.
func bindable(a netip.Addr, written string) error {
	switch {
	case a.Zone() != "":
		return fmt.Errorf("%q: a zone cannot be bound as a source address", written)
	case a.IsUnspecified():
		return fmt.Errorf("%q: the unspecified address is what the kernel picks from without local_ips", written)
	case a.IsMulticast():
		return fmt.Errorf("%q: a multicast address cannot open a TCP connection", written)
	}
	return nil
}

// lastOf is the last address of prefix p.
func lastOf(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
