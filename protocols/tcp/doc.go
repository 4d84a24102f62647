// Package tcp is loadgate's client for framed TCP targets (SPEC §11).
//
// It is one protocol behind the protocols contract: runner's dispatch
// calls NewClient for every TCP target. A worker owns one connection,
// kept across iterations or opened around each; it runs the target's
// on_connect steps once per connection, then per Do one iteration of
// send and expect steps, writing messages framed by the target's framing
// (tcpframe.go: length-prefixed, line, fixed or none) and reading replies
// with a bounded buffer; on a plain socket the write of a request and the
// first read of its reply are one raw exchange (tcpraw.go), which skips the
// read that would find nothing yet. Placeholders render through
// protocols.RenderEnv, so an iteration allocates nothing.
//
// Most phases do not need workers: NewLoop drives all of a phase's
// connections as the slots of a protocols/evloop engine (loop*.go), each
// walked through the same steps (steps.go) from the bytes each read
// brings, with the worker's checks, error kinds and step names.
package tcp
