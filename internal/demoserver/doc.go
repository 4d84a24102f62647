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
//	GET /ws          WebSocket echo: every text or binary message sent back as received
//
// With Config.HTTP2 the HTTP listener also speaks cleartext HTTP/2 with
// prior knowledge (h2c); a preface sent to it without HTTP2 is answered 505
// and counted in [Stats].HTTP2Refused. With Config.HTTPSAddr the same routes
// are served over TLS with a self-signed ECDSA P-256 certificate made in
// memory at Start, valid for 127.0.0.1, ::1 and localhost, and ALPN
// offering h2 and http/1.1 (http/1.1 only with HTTPSNoHTTP2):
// [Server.CertPEM] returns it for clients to trust, and Config.CertFile
// writes it for a scenario's tls.ca_file. [Stats] splits requests by
// protocol version. Over HTTP/2, CloseAfter ends the connection with GOAWAY.
//
// With Config.GRPCAddr it serves gRPC (over TLS with Config.GRPCTLS): the
// echo service of testdata/proto/echo.proto (loadgate.echo.v1.Echo; Say answers
// text and n back, Stream answers n messages, 0 meaning 1, numbered from 0),
// the standard grpc.health.v1 service (SERVING for "" and the echo service)
// and server reflection v1 and v1alpha. The .proto is compiled at start from
// an embedded copy and served with dynamic messages, so no generated code
// is involved. [Stats] counts calls per method and status code.
//
// Under /api it is a small stateful JSON API, so that flows (log in, carry
// the token, list, create, read back) have something real to run against:
//
//	POST /api/login      {"user":U,"pass":P} checked against the user table (Config.Users,
//	                     "--users FILE"; default user1..user1000 with password pw-userN):
//	                     200 {"access_token":T,"token_type":"Bearer"} and cookie sid=T; else 401
//	GET  /api/items      ?page=N (default 1; 10 a page, 100 pages, past the end empty):
//	                     200 {"page":N,"pages":100,"items":[{"id":"item-1","name":..,"price":..},..]}
//	GET  /api/items/ID   200 the item, or 404
//	POST /api/orders     {"item":ID,"qty":N≥1}: 201 {"id":"K","item":ID,"qty":N} with
//	                     Location /api/orders/K; 400 bad body, 422 unknown item
//	GET  /api/orders/K   200 the order if the caller placed it, else 404
//
// Every route but login needs the token, as "Authorization: Bearer T" or
// the sid cookie; without a live one it answers 401 with WWW-Authenticate.
// Errors are {"error": "..."}. Tokens are random per login. Sessions and
// orders live in memory in rings of 100,000 entries each, the oldest
// forgotten first, so an endless load test cannot grow the server without
// bound. [Stats] counts what each endpoint answered per
// status, and each user's successful logins: a test that hands every row
// of a user file out once reads 1 for every user, the server as witness.
//
// With Config.TCPAddr set, it also speaks a framed TCP protocol, the
// monitor-agent protocol of the classic long-versus-short connection study:
// every frame is a big-endian u16 type, a big-endian u32 body length and
// the body (at most 10 MiB; a larger declared length closes the
// connection). Every frame is answered, in order, by one frame of the same
// type:
//
//	{"T":"Connect","S":1,...}     →  {"T":"ConnectAck","S":1}
//	{"T":"<anything else>","S":N} →  {"T":"Ack","S":N}
//	any body that is not such a JSON object is echoed unchanged
//
// With Config.TCPStore set as well, the server has a database behind it:
// every monitor message but Connect is pushed onto a Redis list before it
// is acknowledged, over a small pool of connections that all agents
// share, so a load test sees the application and its database at work
// and a monitor can watch both.
//
// Fault knobs in [Config] make it misbehave on purpose, so that a load
// generator's accuracy (coordinated omission above all) can be tested
// without other tools:
//
//   - Delay, Jitter and DelayDist: a per-request delay drawn from a
//     constant (plus uniform jitter), uniform, exponential or normal
//     distribution; see [DelayDist].
//   - ErrorRate: a fraction of requests answered with 500; on TCP, with
//     an {"T":"Error",...} frame; on gRPC, with status UNAVAILABLE; on a
//     WebSocket, by closing the connection with status 1011 instead of
//     echoing the message.
//   - StallEvery and StallFor: the server freezes for StallFor at the start
//     of every StallEvery-long window counted from [Server.Started], like a
//     stop-the-world pause; every response due in a stall leaves when it
//     ends. A client that waits for each response before sending the next
//     one sends nothing during a stall and, unless it corrects for that,
//     reports latencies far better than the server gave.
//   - CloseAfter: a connection is closed after that many requests (TCP:
//     frames), so clients see connection churn even with keep-alive.
//
// Config.Capacity gives the HTTP routes a known capacity of N requests per
// second, so that a capacity search can be checked against the truth: they
// are served through a fixed pool of W workers (Config.CapacityWorkers,
// default max(8, ⌈N/1000⌉)), each holding a request for a fixed service time
// S = W/N, so throughput saturates at N and queueing starts there. A request
// that finds every worker busy waits first come first served; one that finds
// Config.CapacityQueue (default ⌈N⌉, a second of work) already waiting is
// answered 503 at once. The service time is a timer, as for an I/O-bound
// server, so the model costs no CPU; a busy worker makes up its timer's
// lateness (up to 50 ms) on its next request, so a saturated pool serves N a
// second even on a busy machine. /health, /stats, /ws, TCP and gRPC are
// exempt. [CapacityStats] counts requests queued, served and rejected.
//
// /health and /stats are exempt from all of them except CloseAfter; the
// API is not, and counts an injected error as its endpoint's 500. The
// random choices come from a per-server source seeded by Config.Seed, so a
// run with a fixed seed and sequential requests is reproducible and two
// servers never share state. The knobs are kept apart from HTTP, so every
// listener of a server applies them alike.
//
// Delays and stalls hold each TCP frame's reply as they hold an HTTP
// response; frames of one connection are answered one after another. On
// gRPC they hold each echo call once, before its first reply (health and
// reflection are exempt); on a WebSocket they hold each message's echo, not
// the upgrade. CloseAfter counts the upgrade as one request and does not
// apply to gRPC.
//
// [Stats] counts accepted TCP connections exactly (the listeners count
// them), which lets tests prove whether a client reuses connections
// (keep-alive, a persistent TCP target) or opens one per request; it also
// counts the frames the TCP listener received.
//
// [Start] returns once the server is listening; [Server.Close] stops it,
// closes every connection and waits for all of its goroutines, including
// handlers held by a delay or a stall. [RegisterFlags] and [CheckFlags]
// turn the command line of "loadgate serve" into a [Config].
package demoserver
