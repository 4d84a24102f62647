package demoserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

const (
	sayMethod    = "/" + echoService + "/Say"
	streamMethod = "/" + echoService + "/Stream"
)

// grpcClient dials s's gRPC listener, over TLS trusting s's certificate
// when the server uses it.
func grpcClient(t *testing.T, s *Server) *grpc.ClientConn {
	t.Helper()
	creds := insecure.NewCredentials()
	if s.cfg.GRPCTLS {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(s.CertPEM())
		creds = credentials.NewTLS(&tls.Config{RootCAs: pool})
	}
	cc, err := grpc.NewClient("passthrough:///"+s.GRPCAddr(), grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// echoMessages returns the request and response descriptors of the echo
// service as a client that compiled echo.proto would have them.
func echoMessages(t *testing.T) (req, resp protoreflect.MessageDescriptor) {
	t.Helper()
	fd, err := echoDesc()
	if err != nil {
		t.Fatal(err)
	}
	return fd.Messages().ByName("SayRequest"), fd.Messages().ByName("SayResponse")
}

func sayRequest(t *testing.T, text string, n int32) *dynamicpb.Message {
	t.Helper()
	reqDesc, _ := echoMessages(t)
	m := dynamicpb.NewMessage(reqDesc)
	m.Set(reqDesc.Fields().ByName("text"), protoreflect.ValueOfString(text))
	m.Set(reqDesc.Fields().ByName("n"), protoreflect.ValueOfInt32(n))
	return m
}

// reply is a SayResponse in comparable form.
type reply struct {
	Text string
	N    int32
}

func toReply(m *dynamicpb.Message) reply {
	f := m.Descriptor().Fields()
	return reply{m.Get(f.ByName("text")).String(), int32(m.Get(f.ByName("n")).Int())}
}

// say calls Say once.
func say(ctx context.Context, t *testing.T, cc *grpc.ClientConn, text string, n int32) (reply, error) {
	t.Helper()
	_, respDesc := echoMessages(t)
	out := dynamicpb.NewMessage(respDesc)
	err := cc.Invoke(ctx, sayMethod, sayRequest(t, text, n), out)
	return toReply(out), err
}

// stream calls Stream and collects every reply until the call ends.
func stream(ctx context.Context, t *testing.T, cc *grpc.ClientConn, text string, n int32) ([]reply, error) {
	t.Helper()
	_, respDesc := echoMessages(t)
	cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, streamMethod)
	if err != nil {
		return nil, err
	}
	if err := cs.SendMsg(sayRequest(t, text, n)); err != nil {
		return nil, err
	}
	if err := cs.CloseSend(); err != nil {
		return nil, err
	}
	var got []reply
	for {
		out := dynamicpb.NewMessage(respDesc)
		if err := cs.RecvMsg(out); errors.Is(err, io.EOF) {
			return got, nil
		} else if err != nil {
			return got, err
		}
		got = append(got, toReply(out))
	}
}

func TestGRPCEcho(t *testing.T) {
	for _, cfg := range []Config{
		{GRPCAddr: "127.0.0.1:0"},
		{GRPCAddr: "127.0.0.1:0", GRPCTLS: true},
	} {
		name := "plaintext"
		if cfg.GRPCTLS {
			name = "TLS"
		}
		t.Run(name, func(t *testing.T) {
			s := start(t, cfg)
			cc := grpcClient(t, s)
			ctx := t.Context()

			got, err := say(ctx, t, cc, "héllo", 42)
			if err != nil || got != (reply{"héllo", 42}) {
				t.Errorf("Say = %+v, %v; want {héllo 42}", got, err)
			}
			for _, tt := range []struct {
				n    int32
				want []reply
			}{
				{0, []reply{{"x", 0}}}, // 0 means 1
				{1, []reply{{"x", 0}}},
				{3, []reply{{"x", 0}, {"x", 1}, {"x", 2}}},
			} {
				got, err := stream(ctx, t, cc, "x", tt.n)
				if err != nil {
					t.Fatalf("Stream n=%d: %v", tt.n, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Stream n=%d (-want +got):\n%s", tt.n, diff)
				}
			}
			for _, n := range []int32{-1, maxStreamReplies + 1} {
				if _, err := stream(ctx, t, cc, "x", n); status.Code(err) != codes.InvalidArgument {
					t.Errorf("Stream n=%d: %v, want INVALID_ARGUMENT", n, err)
				}
			}
			st := s.Stats()
			want := map[string]map[string]int64{
				sayMethod:    {"OK": 1},
				streamMethod: {"OK": 3, "INVALID_ARGUMENT": 2},
			}
			if diff := cmp.Diff(want, st.GRPC); diff != "" {
				t.Errorf("Stats().GRPC (-want +got):\n%s", diff)
			}
			if st.GRPCMessages != 1+1+1+3 || st.GRPCAccepted != 1 || st.Accepted != 1 {
				t.Errorf("grpc_messages %d, grpc_accepted %d, accepted %d; want 6, 1, 1", st.GRPCMessages, st.GRPCAccepted, st.Accepted)
			}
		})
	}
}

func TestGRPCFaults(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		timeout  time.Duration // 0 = none
		wantCode codes.Code
		errors   int64
	}{
		{name: "error rate 1 is UNAVAILABLE", cfg: Config{ErrorRate: 1}, wantCode: codes.Unavailable, errors: 2},
		{name: "error rate 0 is OK", cfg: Config{}, wantCode: codes.OK},
		// The delay far exceeds the deadline: the call ends at the deadline.
		{name: "delay past the deadline", cfg: Config{Delay: time.Hour}, timeout: 20 * time.Millisecond, wantCode: codes.DeadlineExceeded},
		{name: "stall past the deadline", cfg: Config{StallEvery: 2 * time.Hour, StallFor: time.Hour}, timeout: 20 * time.Millisecond, wantCode: codes.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.GRPCAddr = "127.0.0.1:0"
			s := start(t, tt.cfg)
			cc := grpcClient(t, s)
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			_, errSay := say(ctx, t, cc, "a", 1)
			_, errStream := stream(ctx, t, cc, "a", 2)
			for _, err := range []error{errSay, errStream} {
				if got := status.Code(err); got != tt.wantCode {
					t.Errorf("code %v (%v), want %v", got, err, tt.wantCode)
				}
			}
			if got := s.Stats().Errors; got != tt.errors {
				t.Errorf("errors %d, want %d", got, tt.errors)
			}
			// Health is exempt from every fault.
			resp, err := healthpb.NewHealthClient(cc).Check(t.Context(), &healthpb.HealthCheckRequest{})
			if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("health = %v, %v; want SERVING", resp, err)
			}
		})
	}
}

// TestGRPCCloseEndsHeldCalls: Close must not wait for an hour-long delay.
func TestGRPCCloseEndsHeldCalls(t *testing.T) {
	s, err := Start(t.Context(), Config{GRPCAddr: "127.0.0.1:0", Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	cc := grpcClient(t, s)
	done := make(chan error, 1)
	go func() {
		_, err := say(t.Context(), t, cc, "a", 1)
		done <- err
	}()
	waitFor(t, func() bool { return s.Stats().GRPCAccepted == 1 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; status.Code(err) == codes.OK {
		t.Error("held call succeeded after Close")
	}
}

func TestGRPCHealth(t *testing.T) {
	s := start(t, Config{GRPCAddr: "127.0.0.1:0"})
	hc := healthpb.NewHealthClient(grpcClient(t, s))
	for _, tt := range []struct {
		service string
		want    healthpb.HealthCheckResponse_ServingStatus
		code    codes.Code
	}{
		{"", healthpb.HealthCheckResponse_SERVING, codes.OK},
		{echoService, healthpb.HealthCheckResponse_SERVING, codes.OK},
		{"no.such.Service", healthpb.HealthCheckResponse_UNKNOWN, codes.NotFound},
	} {
		resp, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{Service: tt.service})
		if status.Code(err) != tt.code || resp.GetStatus() != tt.want {
			t.Errorf("Check(%q) = %v, %v; want %v, %v", tt.service, resp.GetStatus(), err, tt.want, tt.code)
		}
	}
	if got := s.Stats().GRPC["/grpc.health.v1.Health/Check"]; got["OK"] != 2 || got["NOT_FOUND"] != 1 {
		t.Errorf("health counts %v, want OK 2, NOT_FOUND 1", got)
	}
}

func TestGRPCReflection(t *testing.T) {
	s := start(t, Config{GRPCAddr: "127.0.0.1:0"})
	cc := grpcClient(t, s)

	t.Run("v1", func(t *testing.T) {
		rs, err := reflectionv1.NewServerReflectionClient(cc).ServerReflectionInfo(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer rs.CloseSend()
		ask := func(req *reflectionv1.ServerReflectionRequest) *reflectionv1.ServerReflectionResponse {
			if err := rs.Send(req); err != nil {
				t.Fatal(err)
			}
			resp, err := rs.Recv()
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		list := ask(&reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_ListServices{}})
		var names []string
		for _, svc := range list.GetListServicesResponse().GetService() {
			names = append(names, svc.GetName())
		}
		slices.Sort(names)
		want := []string{"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection", echoService}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("services (-want +got):\n%s", diff)
		}

		for _, symbol := range []string{echoService, "grpc.health.v1.Health"} {
			file := ask(&reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: symbol}})
			if e := file.GetErrorResponse(); e != nil {
				t.Fatalf("%s: %v", symbol, e)
			}
			var methods []string
			for _, raw := range file.GetFileDescriptorResponse().GetFileDescriptorProto() {
				var fdp descriptorpb.FileDescriptorProto
				if err := proto.Unmarshal(raw, &fdp); err != nil {
					t.Fatal(err)
				}
				for _, svc := range fdp.GetService() {
					if fdp.GetPackage()+"."+svc.GetName() != symbol {
						continue
					}
					for _, m := range svc.GetMethod() {
						methods = append(methods, m.GetName()+"("+m.GetInputType()+")")
					}
				}
			}
			if len(methods) == 0 {
				t.Errorf("%s: no methods in the file reflection returned", symbol)
			}
			if symbol == echoService {
				want := []string{"Say(.loadgate.echo.v1.SayRequest)", "Stream(.loadgate.echo.v1.SayRequest)"}
				if diff := cmp.Diff(want, methods); diff != "" {
					t.Errorf("echo methods (-want +got):\n%s", diff)
				}
			}
		}
	})
}

// TestEchoProtoIsTheSharedOne: the server embeds a copy of the .proto that
// scenarios and the gRPC client load; the two must not drift apart.
func TestEchoProtoIsTheSharedOne(t *testing.T) {
	shared, err := os.ReadFile("../../testdata/proto/echo.proto")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("testdata/proto/echo.proto not in this tree")
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(shared) != echoProto {
		t.Error("internal/demoserver/echo.proto differs from testdata/proto/echo.proto; copy it over")
	}
}
