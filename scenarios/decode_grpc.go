package scenarios

import (
	"go.yaml.in/yaml/v3"
)

// The first pass over a `grpc:` block. Its values may hold variables and
// are resolved per matrix combination in resolve_grpc.go; a message keeps
// its whole node, which is converted to JSON only then.

type rawGRPC struct {
	node                                 *yaml.Node
	address, method, reflection, timeout *yaml.Node
	connections, stream                  *yaml.Node
	tlsKey                               *yaml.Node // nil = plaintext
	tls                                  rawTLS
	message                              *yaml.Node // a mapping, or a string of JSON
	metadata                             []pair
	protoKey, importPathsKey             *yaml.Node
	proto, importPaths                   []*yaml.Node
	expectCodes                          []*yaml.Node
	expectKey                            *yaml.Node
}

var grpcFields = []field[rawGRPC]{
	scalarField("address", aString, func(g *rawGRPC) **yaml.Node { return &g.address }),
	{name: "tls", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		if fields(d, v, "tls", "tls", tlsFields, &g.tls) {
			g.tlsKey = k
		}
	}},
	scalarField("method", aString, func(g *rawGRPC) **yaml.Node { return &g.method }),
	{name: "message", set: func(d *decoder, g *rawGRPC, _, v *yaml.Node) {
		n := d.deref(v)
		if n.Kind != yaml.MappingNode && n.Kind != yaml.ScalarNode {
			d.errorf(n, "message: expected a mapping of the message's fields or a string of JSON, got %s", describe(n))
			return
		}
		g.message = n
	}},
	{name: "metadata", set: func(d *decoder, g *rawGRPC, _, v *yaml.Node) { g.metadata = d.scalarMap(v, "metadata") }},
	{name: "proto", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		g.protoKey = k
		g.proto = d.scalarList(v, "proto", "a .proto file")
	}},
	{name: "import_paths", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		g.importPathsKey = k
		g.importPaths = d.scalarList(v, "import_paths", "a directory")
	}},
	scalarField("reflection", aBool, func(g *rawGRPC) **yaml.Node { return &g.reflection }),
	scalarField("stream", aString, func(g *rawGRPC) **yaml.Node { return &g.stream }),
	scalarField("timeout", aDuration, func(g *rawGRPC) **yaml.Node { return &g.timeout }),
	scalarField("connections", anInteger, func(g *rawGRPC) **yaml.Node { return &g.connections }),
	{name: "expect", set: func(d *decoder, g *rawGRPC, k, v *yaml.Node) {
		g.expectKey = k
		fields(d, v, "expect", "expect", grpcExpectFields, g)
	}},
}

// grpcExpectFields reads `expect:` of a gRPC target into the target itself:
// it has one field.
var grpcExpectFields = []field[rawGRPC]{
	{name: "code", set: func(d *decoder, g *rawGRPC, _, v *yaml.Node) {
		// One code is shorthand for a one-element list, as status is.
		if n := d.deref(v); n.Kind == yaml.ScalarNode {
			g.expectCodes = []*yaml.Node{n}
			return
		}
		g.expectCodes = d.scalarList(v, "code", "a status code such as OK or 14")
	}},
}

func (d *decoder) grpc(v *yaml.Node) *rawGRPC {
	g := &rawGRPC{node: d.deref(v)}
	if !fields(d, v, "grpc", "grpc", grpcFields, g) {
		return nil
	}
	return g
}
