// Package demoserver is the built-in target server behind "loadgate serve"
// and "loadgate demo".
//
// It exists so that loadgate can be tried, demonstrated and tested on a
// fresh machine with nothing else installed: a scenario can point at it
// instead of a real system under test. It only ever listens on loopback
// addresses, because it is a test fixture rather than a service.
//
// The HTTP/1.1 side answers these routes:
//
//	GET /            200 "hello" (text/plain, Content-Length set), like the classic MINA hello server
//	GET /time        200 the current time in RFC 3339 with nanoseconds
//	GET /health      200 "ok"; never delayed, never fails (readiness probes)
//	GET /stats       200 JSON of [Stats]; never delayed, never fails
//	    /echo        200 the request body (up to 10 MiB), any method
//	GET /bytes/N     200 N bytes (N ≤ 10 MiB) for transfer-rate tests
//	    /status/N    status N (200..599), any method
//
// Fault knobs in [Config] make it misbehave on purpose: a fixed Delay and a
// uniform random Jitter before every response, and an ErrorRate fraction of
// requests answered with 500. The random choices come from a per-server
// source seeded by Config.Seed, so a run with a fixed seed and sequential
// requests is reproducible and two servers never share state.
//
// [Stats] counts accepted TCP connections exactly (the listener is wrapped),
// which lets tests prove whether a client reuses connections (keep-alive) or
// opens one per request.
//
// [Start] returns once the server is listening; [Server.Close] stops it,
// closes every connection and waits for all of its goroutines, including
// handlers that were sleeping in a delay. [ParseFlags] turns the command
// line of "loadgate serve" into a [Config].
package demoserver
