package scenarios

import (
	"strconv"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The model of a gRPC target (SPEC §13). Like the rest of the model it is
// fully resolved at load time; a client builds its calls from it without
// parsing or compiling anything.

// GRPCTarget describes load made of gRPC calls to one method. Every call
// is one request; a server-streaming call succeeds when the stream ends
// with an accepted code, and counts the messages it received.
type GRPCTarget struct {
	Address string // host:port to dial
	// TLS is nil for a plaintext (h2c) connection, the default; a `tls:`
	// block, even an empty one, makes the connection TLS with ALPN h2.
	TLS *TLS
	// Method is the full method name as written, "pkg.Service/Method";
	// Service and MethodName are its two halves. The path on the wire is
	// "/" + Method.
	Method     string
	Service    string // "loadgate.echo.v1.Echo"
	MethodName string // "Say"
	// Descriptor is the method compiled from `proto:` files at load time,
	// with its input and output message descriptors; nil with Reflection.
	// The message has been checked against it.
	Descriptor protoreflect.MethodDescriptor
	// Reflection says the descriptors are fetched from the server's
	// reflection service when the run starts; the method's existence and
	// the message's fields are then checked at run time, before any load.
	Reflection bool
	// ServerStream is true for a server-streaming method: from the
	// descriptor, or from `stream: server` with Reflection.
	ServerStream bool
	// Message is the request message as protojson text (JSON) with the
	// placeholders of its string values (or of the JSON text as written)
	// left in; rendering it and unmarshalling with protojson gives the
	// request. An empty message renders "{}".
	Message Template
	// Metadata is sent with every call, in file order; names are lower
	// case. Values may hold placeholders; names ending in -bin carry
	// binary values, given as they are to the gRPC library.
	Metadata []HeaderTemplate
	// Timeout bounds one call, connect included; it is also the call's
	// deadline sent to the server. Default 30s.
	Timeout time.Duration
	// Connections is how many HTTP/2 connections carry the workers'
	// calls as concurrent streams; default 1.
	Connections int
	Expect      GRPCExpect
}

// GRPCExpect holds the checks of a gRPC call.
type GRPCExpect struct {
	// Codes are the accepted status codes; never empty (default OK). A
	// call ending with another code is a "grpc" error counted under its
	// code's name (errors.grpc["UNAVAILABLE"]).
	Codes []GRPCCode
}

// GRPCCode is a gRPC status code. The values are those of the gRPC
// specification (and of google.golang.org/grpc/codes.Code), so a client
// converts with a plain type conversion.
type GRPCCode uint32

// GRPCCodeOK is the status of a successful call.
const GRPCCodeOK GRPCCode = 0

// grpcCodeNames are the canonical names of the gRPC status codes, indexed
// by value, as the gRPC specification spells them.
var grpcCodeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// String returns the code's canonical name, such as "UNAVAILABLE", or its
// number for a code outside the specification: the key of errors.grpc.
func (c GRPCCode) String() string {
	if int(c) < len(grpcCodeNames) {
		return grpcCodeNames[c]
	}
	return strconv.FormatUint(uint64(c), 10)
}
