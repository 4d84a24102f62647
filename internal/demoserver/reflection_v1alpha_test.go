package demoserver

//lint:file-ignore SA1019 grpcurl and ghz still ask reflection v1alpha, so the server keeps serving it and this test speaks it.

import (
	"testing"

	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
)

func TestGRPCReflectionV1alpha(t *testing.T) {
	s := start(t, Config{GRPCAddr: "127.0.0.1:0"})
	cc := grpcClient(t, s)
	rs, err := reflectionv1alpha.NewServerReflectionClient(cc).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer rs.CloseSend()
	for _, tt := range []struct {
		symbol string
		files  int
	}{
		{"loadgate.echo.v1.SayResponse", 1},
		{echoService, 1},
		{"no.such.Symbol", 0},
	} {
		req := &reflectionv1alpha.ServerReflectionRequest{MessageRequest: &reflectionv1alpha.ServerReflectionRequest_FileContainingSymbol{
			FileContainingSymbol: tt.symbol}}
		if err := rs.Send(req); err != nil {
			t.Fatal(err)
		}
		resp, err := rs.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if files := resp.GetFileDescriptorResponse().GetFileDescriptorProto(); len(files) != tt.files {
			t.Errorf("%s: got %d files (error %v), want %d", tt.symbol, len(files), resp.GetErrorResponse(), tt.files)
		}
	}
}
