// Package http1 is loadgate's HTTP client: the lean HTTP/1.1 client, the
// flow client built on it, and the net/http fallback.
//
// It is one protocol behind the protocols contract: runner's dispatch
// calls NewClient for every HTTP target, and records the Outcome of each
// request. The lean client writes a request with one write on its own
// net.Conn and parses the response as it arrives (http1parse.go), so a
// kept-alive request allocates nothing; body checks (bodycheck.go) stream
// over the body instead of keeping it. A flow target's client (flow.go,
// flowrun.go) renders each step into a reused buffer, sends it through
// the same wire code, extracts values from the response and reports every
// step to the engine's protocols.StepSink. What the lean client does not
// do (HTTP/2, a mix spanning several origins, CONNECT, internationalised
// host names, a proxy) falls back to net/http (httpclient.go).
package http1
