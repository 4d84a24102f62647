// Package evloop is the event loop that drives a whole phase's connections
// of one target from one goroutine on one system thread: raw non-blocking
// sockets, one epoll set, the closed model's slots and the open model's
// arrivals paced by the loop itself, timeouts, and the phase's end, where
// every request still in flight ends as unfinished.
//
// What is said on a connection is the protocol's: an Engine asks its
// Protocol to issue a slot's request and hands it the socket's events;
// the protocol writes and reads the socket and ends the request with the
// engine's Finish or Fail. HTTP/1.1 (plain and kept-alive TLS), h2c and
// framed TCP each run on one. A protocol whose connections carry many
// slots' requests (HTTP/2) is a ConnProtocol; one with work that its own
// goroutines finish off the loop (TLS handshakes) is a Waker, which they
// wake through Engine.Wake.
package evloop
