package demoserver

import (
	"io"
	"net/http"
	"testing"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// BenchmarkH2cHelloLoopback measures one GET / as an h2c stream on one
// connection, client and server in one process.
func BenchmarkH2cHelloLoopback(b *testing.B) {
	s, err := Start(b.Context(), Config{HTTP2: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	url := "http://" + s.HTTPAddr() + "/"
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkGRPCSayLoopback measures one unary Say call with dynamic
// messages on one connection.
func BenchmarkGRPCSayLoopback(b *testing.B) {
	s, err := Start(b.Context(), Config{GRPCAddr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cc, err := grpc.NewClient("passthrough:///"+s.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Close()
	fd, err := echoDesc()
	if err != nil {
		b.Fatal(err)
	}
	reqDesc, respDesc := fd.Messages().ByName("SayRequest"), fd.Messages().ByName("SayResponse")
	req := dynamicpb.NewMessage(reqDesc)
	req.Set(reqDesc.Fields().ByName("text"), protoreflect.ValueOfString("hello"))
	resp := dynamicpb.NewMessage(respDesc)
	b.ReportAllocs()
	for b.Loop() {
		if err := cc.Invoke(b.Context(), sayMethod, req, resp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWebSocketEchoLoopback measures one 64-byte text message echoed
// on one WebSocket.
func BenchmarkWebSocketEchoLoopback(b *testing.B) {
	s, err := Start(b.Context(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, br, _, err := ws.Dial(b.Context(), "ws://"+s.HTTPAddr()+"/ws")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if br != nil {
		b.Fatal("the server spoke before the first message")
	}
	msg := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := wsutil.WriteClientMessage(c, ws.OpText, msg); err != nil {
			b.Fatal(err)
		}
		if _, _, err := wsutil.ReadServerData(c); err != nil {
			b.Fatal(err)
		}
	}
}
