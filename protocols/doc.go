// Package protocols is the contract between the engine and the protocol
// clients.
//
// It sits between scenarios and the engine in loadgate's pipeline:
// scenarios (the model) → protocols (this contract) → protocols/http1,
// protocols/tcp, … (one package per protocol) → runner (the engine, which
// picks a client per target and records what it reports). A client issues
// one worker's requests (Client) and fills an Outcome per request; a
// failure is an ErrorKind, never a Go error. A client that runs whole
// flow iterations implements Iterator and reports each step to the
// engine's StepSink. Feeds hand out the rows of a run's data sources, and
// RenderEnv renders a worker's placeholders without allocating, for every
// client that sends templated payloads.
//
// It imports nothing of loadgate but scenarios, so a new protocol is a new
// package implementing Client, plus one line in runner's dispatch.
package protocols
