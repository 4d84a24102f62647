// Package http1 is loadgate's HTTP/1.1 client: the lean client that speaks
// HTTP/1.1 on a connection of its own (wire_*.go), HTTP/1.1 on the slots
// of a protocols/evloop engine, which drives many connections from one
// goroutine (loop_*.go), and the net/http fallback (nethttp.go).
//
// It is one protocol behind the protocols contract: runner's dispatch
// calls NewClient for every HTTP target, and records the Outcome of each
// request. The lean client writes a request with one write on its own
// net.Conn and parses the response as it arrives (wire_parse.go), so a
// kept-alive request allocates nothing; responses are judged by
// protocols/httpcheck, whose body checks stream over the body instead of
// keeping it. A flow target's client is protocols/httpflow's, whose steps
// go over the lean client's connections (wire_flow.go). What the lean
// client does not do (HTTP/2, a mix spanning several origins, CONNECT,
// internationalised host names, a proxy) falls back to net/http.
package http1
