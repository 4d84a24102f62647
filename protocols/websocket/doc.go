// Package websocket is loadgate's client for WebSocket targets (SPEC §13).
//
// It is one protocol behind the protocols contract: runner's dispatch
// calls NewClient for every WebSocket target. A worker owns one
// connection, kept across iterations or opened around each, as for TCP
// targets: it runs the target's on_connect steps once per connection,
// then per Do one iteration of send and expect steps, each sending or
// reading one whole message. gobwas/ws performs the opening handshake
// (ws:// and wss://); frames are written and parsed here (frame.go) in
// buffers the worker reuses, so an iteration allocates nothing, and a
// message above max_message is refused from its header before any of it
// is read. Pings are answered while reading and never reach an expect.
package websocket
