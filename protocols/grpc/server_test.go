package grpc

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// echoFile is testdata/proto/echo.proto, compiled as a scenario would.
func echoFile(t testing.TB) protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		ImportPaths: []string{"../../testdata/proto"}})}
	files, err := c.Compile(context.Background(), "echo.proto")
	if err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// Texts that make the test server misbehave.
const (
	textUnavailable = "unavailable" // answer UNAVAILABLE
	textHang        = "hang"        // answer only when the call is cancelled
)

// echoServer serves loadgate.echo.v1.Echo with dynamic messages, health and
// reflection on a loopback port, and counts the connections it accepted.
type echoServer struct {
	addr     string
	srv      *grpc.Server
	accepted atomic.Int64
	file     protoreflect.FileDescriptor
	hanging  chan struct{} // receives when a call starts to hang
}

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func startEcho(t testing.TB) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &echoServer{addr: ln.Addr().String(), srv: grpc.NewServer(), file: echoFile(t), hanging: make(chan struct{}, 16)}
	svc := s.file.Services().ByName("Echo")
	in := svc.Methods().ByName("Say").Input()
	out := svc.Methods().ByName("Say").Output()
	s.srv.RegisterService(&grpc.ServiceDesc{
		ServiceName: string(svc.FullName()),
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Say", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			req := dynamicpb.NewMessage(in)
			if err := dec(req); err != nil {
				return nil, err
			}
			text := req.Get(in.Fields().ByName("text")).String()
			switch text {
			case textUnavailable:
				return nil, status.Error(codes.Unavailable, "told to be unavailable")
			case textHang:
				s.hanging <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			resp := dynamicpb.NewMessage(out)
			resp.Set(out.Fields().ByName("text"), protoreflect.ValueOfString(text))
			return resp, nil
		}}},
		Streams: []grpc.StreamDesc{{StreamName: "Stream", ServerStreams: true, Handler: func(_ any, st grpc.ServerStream) error {
			req := dynamicpb.NewMessage(in)
			if err := st.RecvMsg(req); err != nil {
				return err
			}
			n := max(1, req.Get(in.Fields().ByName("n")).Int())
			for i := range n {
				resp := dynamicpb.NewMessage(out)
				resp.Set(out.Fields().ByName("n"), protoreflect.ValueOfInt32(int32(i)))
				if err := st.SendMsg(resp); err != nil {
					return err
				}
			}
			return nil
		}}},
		Metadata: "echo.proto",
	}, struct{}{})
	healthpb.RegisterHealthServer(s.srv, health.NewServer())
	rpb.RegisterServerReflectionServer(s.srv, reflection.NewServerV1(reflection.ServerOptions{
		Services: s.srv, DescriptorResolver: resolver{s.file}}))
	go func() { _ = s.srv.Serve(countingListener{ln, &s.accepted}) }()
	t.Cleanup(s.srv.Stop)
	return s
}

// resolver finds the echo file, and everything else among the files
// compiled into the test binary (health, reflection).
type resolver struct{ echo protoreflect.FileDescriptor }

func (r resolver) FindFileByPath(path string) (protoreflect.FileDescriptor, error) {
	if path == r.echo.Path() {
		return r.echo, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(path)
}

func (r resolver) FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d := findIn(r.echo, name); d != nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(name)
}

func findIn(f protoreflect.FileDescriptor, name protoreflect.FullName) protoreflect.Descriptor {
	if d := f.Services().ByName(name.Name()); d != nil && d.FullName() == name {
		return d
	}
	if d := f.Messages().ByName(name.Name()); d != nil && d.FullName() == name {
		return d
	}
	return nil
}
