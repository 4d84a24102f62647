// Package http2 is loadgate's HTTP/2 client: h2 over TLS, negotiated with
// ALPN, for https:// targets and cleartext h2c with prior knowledge for
// http:// targets.
//
// It is one protocol behind the protocols contract. Unlike HTTP/1.1, where
// every worker owns its connection, the workers of a phase share a Pool of
// `connections:` TCP connections per origin and send their requests over
// them as concurrent streams, as h2load's -c and -m do: worker w uses
// connection w mod C. runner's dispatch makes one Pool per case and closes
// it when the case ends.
//
// The connections are driven here, on x/net/http2's Framer, as lean as
// protocols/http1: a request's header block is encoded once (static table
// entries and never-indexed literals, valid on any connection); a
// connection has one reader goroutine that hands each stream's headers,
// data and reset to the worker waiting on it, which waits on one channel
// that the reader, the request's timer and its context's end all signal;
// the reader decodes a response's header block with a decoder of its own
// (statusdec.go) that reads only :status and keeps the HPACK table without
// making strings, unless a flow's step may keep the fields (x/net's hpack
// then); workers write their frames under one lock into one buffered
// writer, flushed once per burst by a flusher goroutine; a worker's
// stream, timer and buffers are reused from request to request, so that a
// request allocates nothing but the frame x/net's Framer makes for each
// HEADERS read. Flow control, SETTINGS, PING, GOAWAY and
// MAX_CONCURRENT_STREAMS are honoured; the checks of expect are
// protocols/httpcheck's, so that a response is judged the same over either
// protocol, and a flow's client is protocols/httpflow's.
//
// Phases of an h2c target to this machine run on the event loop instead
// (NewLoop, loop.go): each loop drives its share of the connections from
// one goroutine, parses the frames its reads bring, and carries each of
// the engine's slots as one stream at a time, with no goroutine, channel or
// lock per stream (see docs/measurement.md, "The event loop").
package http2
