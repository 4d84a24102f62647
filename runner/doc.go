// Package runner is loadgate's engine: it drives the load of resolved
// scenarios and measures it.
//
// It sits in the middle of loadgate's pipeline: scenarios (parse and
// validate) → protocols (the client contract) and its protocol packages
// (protocols/http1, protocols/tcp, …) → runner (phases, load models,
// pacing, recording) → assertions (threshold rules) → reporters. It knows
// nothing of rules or output formats, and nothing of any protocol's wire:
// dispatch.go, the one file that names the protocol packages, picks a
// client per target, and the engine only sees protocols.Client.
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
// Open-model phases schedule arrivals from a pure pacing function and time
// each request from its scheduled start. A flow target's client runs whole
// iterations (protocols.Iterator) and reports each step to the engine's
// step sink (flowengine.go). The servers under test are started, sampled
// and stopped through package sut.
//
// A failed request is data (a protocols.ErrorKind counted in the result);
// a Go error from Run means the run itself could not be carried out.
package runner
