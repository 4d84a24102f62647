// Package grpc is loadgate's gRPC client (SPEC §13): unary and
// server-streaming calls to one method, built from a message template and
// a method descriptor that was compiled from `proto:` files when the
// scenario was loaded, or fetched from the server's reflection service
// when the case starts.
//
// A case shares `connections: C` HTTP/2 connections among its workers
// (Shared, made once per case by the engine's dispatch); worker w sends
// its calls as streams of connection w % C. Requests are marshalled once
// when the message has no placeholders, and rendered, parsed (protojson)
// and marshalled into a reused dynamic message otherwise. Responses are
// counted (messages and bytes), not decoded: the only check of a gRPC
// call is its status code.
package grpc
