package demoserver

import (
	"context"
	_ "embed" // the echo service's .proto
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// echoProto is a copy of testdata/proto/echo.proto (a test keeps them
// equal), compiled when the first gRPC listener starts. Compiling the
// source rather than generating Go code keeps the build free of protoc, and
// the server speaks exactly the file scenarios load.
//
//go:embed echo.proto
var echoProto string

// echoService is the full name of the gRPC echo service; its methods are
// "/loadgate.echo.v1.Echo/Say" (unary) and "/loadgate.echo.v1.Echo/Stream"
// (server-streaming).
const echoService = "loadgate.echo.v1.Echo"

// maxStreamReplies is the largest n a Stream call may ask for; a larger
// (or negative) n is answered INVALID_ARGUMENT, so one call cannot keep
// the server busy without bound.
const maxStreamReplies = 100_000

// echoDesc is the compiled echo.proto, shared by every server: descriptors
// are immutable.
var echoDesc = sync.OnceValues(func() (protoreflect.FileDescriptor, error) {
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"echo.proto": echoProto}),
	}}
	files, err := c.Compile(context.Background(), "echo.proto")
	if err != nil {
		return nil, fmt.Errorf("compile echo.proto: %w", err)
	}
	return files[0], nil
})

// grpcSide is the gRPC listener of a Server.
type grpcSide struct {
	ln     net.Listener
	srv    *grpc.Server
	health *health.Server
	calls  callCounts

	// The echo messages and their fields, looked up once.
	req, resp         protoreflect.MessageDescriptor
	reqText, reqN     protoreflect.FieldDescriptor
	respText, respN   protoreflect.FieldDescriptor
	files             *protoregistry.Files
	sayName, strmName string
}

// startGRPC opens the gRPC listener when Config.GRPCAddr asks for one.
func (s *Server) startGRPC(ctx context.Context) error {
	if s.cfg.GRPCAddr == "" {
		return nil
	}
	fd, err := echoDesc()
	if err != nil {
		return fmt.Errorf("demoserver: %w", err)
	}
	g, err := newGRPCSide(fd)
	if err != nil {
		return fmt.Errorf("demoserver: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.GRPCAddr)
	if err != nil {
		return fmt.Errorf("demoserver: listen grpc: %w", err)
	}
	g.ln = &countingListener{Listener: ln, accepted: &s.ctr.accepted, also: &s.ctr.grpcAccepted}
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(g.countUnary),
		grpc.ChainStreamInterceptor(g.countStream),
		// So that Close, through Stop, returns only when every handler has.
		grpc.WaitForHandlers(true),
	}
	if s.cfg.GRPCTLS {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.tlsConfig())))
	}
	g.srv = grpc.NewServer(opts...)
	g.register(s)
	s.grpc = g
	s.serving.Go(func() {
		if err := g.srv.Serve(g.ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.log.Error().Err(err).Msg("grpc serve stopped")
		}
	})
	return nil
}

func newGRPCSide(fd protoreflect.FileDescriptor) (*grpcSide, error) {
	msgs := fd.Messages()
	req, resp := msgs.ByName("SayRequest"), msgs.ByName("SayResponse")
	if req == nil || resp == nil {
		return nil, errors.New("echo.proto: SayRequest or SayResponse missing")
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		return nil, fmt.Errorf("echo.proto: %w", err)
	}
	g := &grpcSide{
		req: req, resp: resp,
		reqText: req.Fields().ByName("text"), reqN: req.Fields().ByName("n"),
		respText: resp.Fields().ByName("text"), respN: resp.Fields().ByName("n"),
		files:    files,
		sayName:  "/" + echoService + "/Say",
		strmName: "/" + echoService + "/Stream",
	}
	if g.reqText == nil || g.reqN == nil || g.respText == nil || g.respN == nil {
		return nil, errors.New("echo.proto: a text or n field is missing")
	}
	return g, nil
}

// register adds the echo service by hand (there is no generated code), the
// standard health service, and server reflection in both versions, since
// grpcurl and ghz still ask v1alpha.
func (g *grpcSide) register(s *Server) {
	g.srv.RegisterService(&grpc.ServiceDesc{
		ServiceName: echoService,
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Say", Handler: g.sayHandler(s)}},
		Streams: []grpc.StreamDesc{{
			StreamName: "Stream", ServerStreams: true,
			Handler: func(_ any, ss grpc.ServerStream) error { return g.stream(s, ss) },
		}},
		Metadata: "echo.proto",
	}, s)

	g.health = health.NewServer()
	g.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	g.health.SetServingStatus(echoService, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(g.srv, g.health)

	refl := reflection.ServerOptions{
		Services:           g.srv,
		DescriptorResolver: chainResolver{g.files, protoregistry.GlobalFiles},
	}
	reflectionv1.RegisterServerReflectionServer(g.srv, reflection.NewServerV1(refl))
	reflectionv1alpha.RegisterServerReflectionServer(g.srv, reflection.NewServer(refl))
}

// sayHandler answers Say with the request's text and n.
func (g *grpcSide) sayHandler(s *Server) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	info := &grpc.UnaryServerInfo{Server: s, FullMethod: g.sayName}
	say := func(ctx context.Context, req any) (any, error) {
		in := req.(*dynamicpb.Message)
		if err := s.grpcFaults(ctx); err != nil {
			return nil, err
		}
		out := dynamicpb.NewMessage(g.resp)
		out.Set(g.respText, in.Get(g.reqText))
		out.Set(g.respN, in.Get(g.reqN))
		s.ctr.grpcMessages.Add(1)
		return out, nil
	}
	return func(_ any, ctx context.Context, dec func(any) error, icpt grpc.UnaryServerInterceptor) (any, error) {
		in := dynamicpb.NewMessage(g.req)
		if err := dec(in); err != nil {
			return nil, err
		}
		if icpt == nil {
			return say(ctx, in)
		}
		return icpt(ctx, in, info, say)
	}
}

// stream answers Stream with n replies (0 means 1), each with the request's
// text and its index from 0.
func (g *grpcSide) stream(s *Server, ss grpc.ServerStream) error {
	in := dynamicpb.NewMessage(g.req)
	if err := ss.RecvMsg(in); err != nil {
		return err
	}
	n := in.Get(g.reqN).Int()
	if n < 0 || n > maxStreamReplies {
		return status.Errorf(codes.InvalidArgument, "n %d: want 0..%d", n, maxStreamReplies)
	}
	if err := s.grpcFaults(ss.Context()); err != nil {
		return err
	}
	// SendMsg encodes before returning, so one message serves every reply.
	out := dynamicpb.NewMessage(g.resp)
	out.Set(g.respText, in.Get(g.reqText))
	for i := range max(n, 1) {
		out.Set(g.respN, protoreflect.ValueOfInt32(int32(i)))
		if err := ss.SendMsg(out); err != nil {
			return err
		}
		s.ctr.grpcMessages.Add(1)
	}
	return nil
}

// grpcFaults applies the stall, delay and error rate to one echo call, once
// per call (a Stream's replies then follow without delay). An injected error
// is UNAVAILABLE, the status a client retries or counts as a server fault.
func (s *Server) grpcFaults(ctx context.Context) error {
	f := s.faults
	if f.stalls() && !sleepCtx(ctx, f.stallWait(time.Now())) {
		return status.FromContextError(ctx.Err()).Err()
	}
	wait, fail := f.next()
	if !sleepCtx(ctx, wait) {
		return status.FromContextError(ctx.Err()).Err()
	}
	if f.stalls() && wait > 0 && !sleepCtx(ctx, f.stallWait(time.Now())) {
		return status.FromContextError(ctx.Err()).Err()
	}
	if fail {
		s.ctr.errors.Add(1)
		return status.Error(codes.Unavailable, "injected error")
	}
	return nil
}

// sleepCtx sleeps for d and reports whether it did, or returns false as soon
// as ctx ends: the client left, or Close stopped the gRPC server, which
// cancels every call.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// stopGRPC stops the gRPC listener: health turns NOT_SERVING for watchers,
// then every call is cancelled and every connection closed; Stop returns
// once the handlers have (WaitForHandlers).
func (s *Server) stopGRPC() {
	if s.grpc == nil {
		return
	}
	s.grpc.health.Shutdown()
	s.grpc.srv.Stop()
}

// GRPCAddr returns the address the gRPC listener is bound to, with the port
// resolved, or "" when the server has no gRPC listener.
func (s *Server) GRPCAddr() string {
	if s.grpc == nil {
		return ""
	}
	return s.grpc.ln.Addr().String()
}

// countUnary and countStream count every call that ends, per method and
// status, the health and reflection services included.
func (g *grpcSide) countUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	resp, err := h(ctx, req)
	g.calls.add(info.FullMethod, status.Code(err))
	return resp, err
}

func (g *grpcSide) countStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	err := h(srv, ss)
	g.calls.add(info.FullMethod, status.Code(err))
	return err
}

// numCodes is the number of gRPC status codes, OK (0) to UNAUTHENTICATED
// (16).
const numCodes = 17

// callCounts counts calls per method and code. The map only grows by one
// entry per method the first time it is called, so a read lock suffices on
// every later call and the counts themselves are atomics.
type callCounts struct {
	mu sync.RWMutex
	m  map[string]*[numCodes]atomic.Int64
}

func (c *callCounts) add(method string, code codes.Code) {
	if code >= numCodes {
		code = codes.Unknown
	}
	c.mu.RLock()
	p := c.m[method]
	c.mu.RUnlock()
	if p == nil {
		c.mu.Lock()
		if p = c.m[method]; p == nil {
			if c.m == nil {
				c.m = map[string]*[numCodes]atomic.Int64{}
			}
			p = new([numCodes]atomic.Int64)
			c.m[method] = p
		}
		c.mu.Unlock()
	}
	p[code].Add(1)
}

// snapshot returns the counts by method and code name ("OK",
// "UNAVAILABLE"), leaving out zeros; nil before the first call.
func (c *callCounts) snapshot() map[string]map[string]int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.m) == 0 {
		return nil
	}
	out := make(map[string]map[string]int64, len(c.m))
	for method, p := range c.m {
		byCode := map[string]int64{}
		for code := range p {
			if v := p[code].Load(); v > 0 {
				byCode[codeName(codes.Code(code))] = v
			}
		}
		out[method] = byCode
	}
	return out
}

// codeName is the canonical upper-case name of a code, as in the gRPC
// specification and loadgate's errors.grpc keys ("DEADLINE_EXCEEDED");
// codes.Code.String gives the Go constant name ("DeadlineExceeded").
func codeName(c codes.Code) string {
	return codeNames[c]
}

var codeNames = [numCodes]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// chainResolver resolves descriptors from each resolver in turn: the echo
// file is not in the global registry (it is compiled, not generated), and
// the health and reflection files are only there.
type chainResolver []protodesc.Resolver

// FindFileByPath implements protodesc.Resolver.
func (c chainResolver) FindFileByPath(path string) (protoreflect.FileDescriptor, error) {
	for _, r := range c {
		if fd, err := r.FindFileByPath(path); err == nil {
			return fd, nil
		}
	}
	return nil, protoregistry.NotFound
}

// FindDescriptorByName implements protodesc.Resolver.
func (c chainResolver) FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error) {
	for _, r := range c {
		if d, err := r.FindDescriptorByName(name); err == nil {
			return d, nil
		}
	}
	return nil, protoregistry.NotFound
}
