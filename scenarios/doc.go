// Package scenarios reads loadgate scenario files: YAML in, a fully
// resolved [Scenario] out, or every problem of the file as an [ErrorList]
// whose entries carry file:line:col.
//
// It is the first stage of the pipeline
//
//	scenarios → protocols → protocols/* → runner → assertions → reporters
//
// and imports none of the others. Everything later stages need is resolved
// here, before any traffic is sent: variables are substituted, defaults
// applied, durations and sizes typed, body_file read, the matrix expanded
// into [Case] values (target-major, last axis varying fastest), and every
// threshold's position recorded so that the assertions package can compile
// its rule and report a mistake at the right column. Rules themselves are
// not compiled here.
//
// A target speaks HTTP, raw TCP, gRPC or WebSocket. A TCP target's framing and steps are
// resolved into plain values here too: header fields with their sizes and
// byte order, and every payload compiled into a [Template] of literal bytes
// and typed placeholders, so that a mistyped placeholder is a load error
// with its column and the runner renders payloads without parsing them.
// Whether every payload fits its frame is checked here, once.
//
// HTTP targets may speak HTTP/2; gRPC and WebSocket targets (SPEC §13) are
// resolved the same way. A gRPC target's proto files are compiled here
// (bufbuild/protocompile) into the method's protoreflect descriptor, which
// the model carries so the client compiles nothing; its message becomes a
// Template of protojson text, built once with sample placeholder values to
// check it against the descriptor. WebSocket steps reuse the TCP step
// model, one message per step.
//
// A server to start, or a process to monitor, belongs to the scenario or to
// one target and lives across many cases, so its block is resolved once,
// without matrix variables; its directory is checked to exist, and its
// readiness checks and stop signal are validated, so that a mistake is
// found by `validate` rather than by a run that cannot start. Same-job A/B
// references (baseline_target) are checked here too: another target, and
// one that is not itself compared against a third.
//
// Decoding is strict and done in two passes over the yaml.Node tree. The
// first checks the shape of the document against one field table per kind
// of object (unknown keys, lists versus mappings, keys the specification
// names but this version does not implement) and keeps each scalar's node.
// The second resolves those scalars per matrix combination, so that
// `concurrency: ${concurrency}` is checked as an integer for every value of
// the axis, with the error pointing at the use. Diagnostics repeated by the
// combinations are reported once.
//
// A distributed run's share of the load is a transformation of the model
// too: Split gives a Segment (`--segment I/N`) its part of every phase,
// and says of each case it gets nothing of why.
//
// The format is documented in docs/scenario.md; [Schema] returns its JSON
// Schema for editors.
package scenarios
