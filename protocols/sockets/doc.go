// Package sockets opens TCP connections on raw non-blocking sockets, for
// the clients that drive their descriptors themselves (the event loops,
// the lean HTTP/1.1 client): the target's and the source addresses in the
// kernel's layout, made once, and the errors of a failed connection in
// net.Dialer's words, made once per kind of failure.
package sockets
