// Package http2 is loadgate's HTTP/2 client: h2 over TLS, negotiated with
// ALPN, for https:// targets and cleartext h2c with prior knowledge for
// http:// targets.
//
// It is one protocol behind the protocols contract. Unlike HTTP/1.1, where
// every worker owns its connection, the workers of a phase share a Pool of
// `connections:` TCP connections per origin and send their requests over
// them as concurrent streams, as h2load's -c and -m do: worker w uses
// connection w mod C. runner's dispatch makes one Pool per phase and closes
// it when the phase ends. The frames are x/net/http2's (one ClientConn per
// connection, on a connection this package dials, so that it chooses how
// many there are, times their handshakes and counts their bytes); the
// checks of expect are protocols/http1's, so that a response is judged the
// same over either protocol.
package http2
