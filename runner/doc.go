// Package runner drives the load of resolved scenarios and measures it.
//
// It sits second in loadgate's pipeline: scenarios (parse and validate) →
// runner (phases, load models, protocol clients, metrics) → assertions
// (threshold rules) → reporters. It knows nothing of rules or output formats.
//
// A phase of the closed model runs N workers; each owns a Client (one
// connection, like ab -c or wrk -c), sends a request, waits for the response,
// optionally thinks, and repeats until the phase's duration or request count
// is reached. Latency runs from the moment the worker became ready to the
// last byte of the response. Workers record into a few mutex-guarded shards;
// once a second a collector drains them into the phase's HDR histograms and
// appends a point to the time series, so no per-request sample is kept and
// no global lock is taken per request.
//
// Clients: HTTP/1.1 targets use a lean client on net.Conn (one write and
// usually one read per request, nothing allocated per request), falling
// back to net/http for what it does not do; TCP targets run scripted
// send/expect steps over framed connections. Open-model phases schedule
// arrivals from a pure pacing function and time each request from its
// scheduled start. The package also starts, samples and stops the system
// under test (server.go, monitor.go) and splits load into segments.
//
// A failed request is data (an ErrorKind counted in the result); a Go error
// from Run means the run itself could not be carried out.
package runner
