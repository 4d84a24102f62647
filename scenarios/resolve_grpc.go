package scenarios

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// grpcMethod is a full method name: a service (with its package, if any)
// and a method, as written in `method:`.
var grpcMethod = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)/([A-Za-z_][A-Za-z0-9_]*)$`)

// grpc resolves a `grpc:` block for one matrix combination.
func (r *resolver) grpc(g *rawGRPC) *GRPCTarget {
	out := &GRPCTarget{Timeout: defaultTimeout, Connections: 1, Expect: GRPCExpect{Codes: []GRPCCode{GRPCCodeOK}}}
	if g.address == nil {
		r.d.errorf(g.node, "grpc: missing required field %q", "address")
	} else {
		out.Address = r.address(g.address, "address")
	}
	if g.tlsKey != nil {
		tls := r.tls(&g.tls)
		out.TLS = &tls
	}
	if g.method == nil {
		r.d.errorf(g.node, "grpc: missing required field %q", "method")
	} else if s, ok := r.text(g.method); ok {
		if m := grpcMethod.FindStringSubmatch(s); m != nil {
			out.Method, out.Service, out.MethodName = s, m[1], m[2]
		} else {
			r.d.errorf(g.method, "method: expected package.Service/Method, got %q", s)
		}
	}
	if g.timeout != nil {
		out.Timeout = r.timeout(g.timeout, out.Timeout)
	}
	if g.connections != nil {
		if v, ok := r.intIn(g.connections, "connections", 1, maxConnections); ok {
			out.Connections = int(v)
		}
	}
	if len(g.expectCodes) > 0 {
		out.Expect.Codes = r.grpcCodes(g.expectCodes)
	}
	out.Metadata = r.metadata(g.metadata)
	r.descriptors(g, out)
	return out
}

// grpcCodes resolves `expect: { code: ... }`: names as the gRPC
// specification spells them (any case) or numbers.
func (r *resolver) grpcCodes(list []*yaml.Node) []GRPCCode {
	var out []GRPCCode
	for _, n := range list {
		s, ok := r.text(n)
		if !ok {
			continue
		}
		c, ok := parseGRPCCode(s)
		if !ok {
			r.d.errorf(n, "code: %q is not a gRPC status code (OK, CANCELLED, … UNAUTHENTICATED, or 0 to 16)%s",
				s, suggest(strings.ToUpper(s), grpcCodeNames[:]))
			continue
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = []GRPCCode{GRPCCodeOK}
	}
	return out
}

func parseGRPCCode(s string) (GRPCCode, bool) {
	if v, err := strconv.ParseUint(s, 10, 32); err == nil {
		return GRPCCode(v), v < uint64(len(grpcCodeNames))
	}
	i := slices.Index(grpcCodeNames[:], strings.ToUpper(s))
	return GRPCCode(max(i, 0)), i >= 0
}

// metadata resolves `metadata:`: gRPC sends names in lower case, and a
// value may hold placeholders. Credentials are redacted like headers.
func (r *resolver) metadata(kvs []pair) []HeaderTemplate {
	var out []HeaderTemplate
	for _, kv := range kvs {
		name := strings.ToLower(kv.key.Value)
		switch {
		case !isToken(name):
			r.d.errorf(kv.key, "metadata: %q is not a valid metadata name", kv.key.Value)
			continue
		case strings.HasPrefix(name, "grpc-") || name[0] == ':':
			r.d.errorf(kv.key, "metadata: %q is reserved by gRPC", kv.key.Value)
			continue
		}
		v, ok := r.headerValue(kv, name, "metadata.%s: a value cannot contain line breaks or NUL")
		if !ok {
			continue
		}
		tpl, errs := compileTemplate(v)
		for _, e := range errs {
			r.d.errs = append(r.d.errs, Errorf(r.substitutedPos(kv.val, v, e.Off), "metadata.%s: %s", kv.key.Value, e.Msg))
		}
		out = append(out, HeaderTemplate{Name: name, Value: tpl})
	}
	return out
}

// descriptors resolves where the method's descriptors come from (proto
// files or server reflection), whether it streams, and the message, which
// is checked against the descriptor when there is one.
func (r *resolver) descriptors(g *rawGRPC, out *GRPCTarget) {
	if g.reflection != nil {
		out.Reflection, _ = r.bool(g.reflection, "reflection")
	}
	switch {
	case out.Reflection && g.protoKey != nil:
		r.d.errorf(g.reflection, "reflection: true and proto: exclude each other; the descriptors come from the server or from files")
	case !out.Reflection && g.protoKey == nil && g.reflection == nil:
		r.d.errorf(g.node, "grpc: needs proto: files describing the method, or reflection: true to ask the server")
	case !out.Reflection && g.protoKey == nil:
		r.d.errorf(g.reflection, "reflection: false needs proto: files describing the method")
	case g.protoKey == nil && g.importPathsKey != nil:
		r.d.errorf(g.importPathsKey, "import_paths: only with proto: files")
	}
	stream, streamOK := "", true
	if g.stream != nil {
		stream, streamOK = r.text(g.stream)
		if streamOK {
			if out.ServerStream, streamOK = findWord(streamWords, stream); !streamOK {
				r.d.errorf(g.stream, "stream: expected %s, got %q", expected(streamWords), stream)
			}
		}
	}
	msg, msgOK := r.message(g.message)
	out.Message = msg
	if g.protoKey == nil || out.Reflection || out.Service == "" {
		return
	}
	md := r.methodDescriptor(g, out)
	if md == nil {
		return
	}
	out.Descriptor = md
	switch {
	case md.IsStreamingClient() && md.IsStreamingServer():
		r.d.errorf(g.method, "method: %s is a bidirectional streaming method; loadgate makes unary and server-streaming calls", out.Method)
	case md.IsStreamingClient():
		r.d.errorf(g.method, "method: %s is a client-streaming method; loadgate makes unary and server-streaming calls", out.Method)
	case streamOK && g.stream != nil && out.ServerStream != md.IsStreamingServer():
		r.d.errorf(g.stream, "stream: %s, but %s is %s", stream, out.Method, map[bool]string{true: "a server-streaming method", false: "a unary method"}[md.IsStreamingServer()])
	}
	out.ServerStream = md.IsStreamingServer()
	if msgOK {
		at := g.message
		if at == nil {
			at = g.node
		}
		r.checkMessage(g.message, at, msg, md)
	}
}
