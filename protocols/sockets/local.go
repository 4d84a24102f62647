package sockets

import (
	"context"
	"net/netip"
	"time"
)

// LookupFunc resolves a host name, as net.Resolver.LookupNetIP does.
type LookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

// Local is where an event loop connects for host and port: host's IP
// address, or the addresses its name resolves to, in the resolver's
// order, when every one is a loopback address, as localhost's are. A name that reaches beyond
// the machine stays with the workers, whose dialer resolves it at every
// connection and so follows a DNS that spreads clients over servers.
func Local(host, port string, lookup LookupFunc) ([]*Addr, string) {
	if a := NewAddr(host, port); a != nil {
		return []*Addr{a}, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ips, err := lookup(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return nil, "the host name did not resolve: the workers' dialer tries it at each connection"
	}
	var addrs []*Addr
	for _, ip := range ips {
		a := NewAddr(ip.Unmap().String(), port)
		if !ip.IsLoopback() || a == nil {
			return nil, "the host is a name beyond this machine, which the workers' dialer resolves at each connection"
		}
		addrs = append(addrs, a)
	}
	return addrs, ""
}
