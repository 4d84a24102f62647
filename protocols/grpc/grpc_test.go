package grpc

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// target is the gRPC target of a one-target scenario whose grpc block has
// the lines given (indented by the caller's YAML), at address.
func target(t testing.TB, address, body string) *scenarios.Target {
	t.Helper()
	src := "version: 1\nname: t\ntargets:\n- name: echo\n  grpc:\n    address: " + address + "\n" + body +
		"phases: [{name: m, requests: 1}]\n"
	sc, err := scenarios.Parse("t.yaml", []byte(src), scenarios.LoadOptions{})
	if err != nil {
		t.Fatalf("scenario: %v\n%s", err, src)
	}
	return &sc.Targets[0]
}

const protoSay = "    method: loadgate.echo.v1.Echo/Say\n    proto: ../../testdata/proto/echo.proto\n"
const protoStream = "    method: loadgate.echo.v1.Echo/Stream\n    proto: ../../testdata/proto/echo.proto\n"

// do makes one call with the client of worker 0.
func do(t *testing.T, tg *scenarios.Target, calls int) protocols.Outcome {
	t.Helper()
	s, err := NewShared(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.NewClient(tg, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out protocols.Outcome
	for range calls {
		c.Do(context.Background(), 0, &out)
	}
	return out
}

// downAddress is a loopback address nothing listens on.
func downAddress(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestCalls(t *testing.T) {
	srv := startEcho(t)
	tests := []struct {
		name     string
		address  string
		body     string
		kind     protocols.ErrorKind
		status   string // the status name of a grpc error, or of the call
		messages int64
		errHas   string
	}{
		{name: "unary OK", body: protoSay + "    message: { text: \"hi {{worker}}\", n: \"{{seq}}\" }\n",
			kind: protocols.KindNone, status: "OK", messages: 1},
		{name: "static message and metadata", body: protoSay + "    message: { text: hi }\n    metadata: { x-id: \"{{uuid}}\", x-team: qa }\n",
			kind: protocols.KindNone, status: "OK", messages: 1},
		{name: "stream of 7", body: protoStream + "    message: { n: 7 }\n", kind: protocols.KindNone, status: "OK", messages: 7},
		{name: "UNAVAILABLE from the server", body: protoSay + "    message: { text: unavailable }\n",
			kind: protocols.KindGRPC, status: "UNAVAILABLE", errHas: "told to be unavailable"},
		{name: "UNAVAILABLE accepted", body: protoSay + "    message: { text: unavailable }\n    expect: { code: [OK, UNAVAILABLE] }\n",
			kind: protocols.KindNone, status: "UNAVAILABLE"},
		{name: "OK not accepted", body: protoSay + "    message: { text: hi }\n    expect: { code: NOT_FOUND }\n",
			kind: protocols.KindGRPC, status: "OK", messages: 1, errHas: "expect.code"},
		{name: "deadline", body: protoSay + "    message: { text: hang }\n    timeout: 50ms\n",
			kind: protocols.KindTimeout, errHas: "DeadlineExceeded"},
		{name: "server down", address: downAddress(t), body: protoSay + "    message: { text: hi }\n",
			kind: protocols.KindConnect, errHas: "connection refused"},
		{name: "health by reflection", body: "    method: grpc.health.v1.Health/Check\n    reflection: true\n    message: '{\"service\": \"\"}'\n",
			kind: protocols.KindNone, status: "OK", messages: 1},
		{name: "stream by reflection", body: "    method: loadgate.echo.v1.Echo/Stream\n    reflection: true\n    stream: server\n    message: { n: 3 }\n",
			kind: protocols.KindNone, status: "OK", messages: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := tt.address
			if addr == "" {
				addr = srv.addr
			}
			out := do(t, target(t, addr, tt.body), 2)
			if out.Kind != tt.kind {
				t.Fatalf("kind = %v (%v), want %v", out.Kind, out.Err, tt.kind)
			}
			if tt.status != "" && scenarios.GRPCCode(out.Status).String() != tt.status {
				t.Errorf("status = %s, want %s", scenarios.GRPCCode(out.Status).String(), tt.status)
			}
			if out.Messages != tt.messages {
				t.Errorf("messages = %d, want %d", out.Messages, tt.messages)
			}
			if tt.kind == protocols.KindNone && (out.Err != nil || out.BytesSent < 5) {
				t.Errorf("a success with err %v and %d bytes sent", out.Err, out.BytesSent)
			}
			if tt.errHas != "" && (out.Err == nil || !strings.Contains(out.Err.Error(), tt.errHas)) {
				t.Errorf("err = %v, want one mentioning %q", out.Err, tt.errHas)
			}
		})
	}
}

func TestReflectionRefuses(t *testing.T) {
	srv := startEcho(t)
	tests := []struct{ name, body, want string }{
		{"unknown service", "    method: loadgate.echo.v1.Nope/Say\n    reflection: true\n",
			`the server has no service "loadgate.echo.v1.Nope"`},
		{"unknown method", "    method: loadgate.echo.v1.Echo/Shout\n    reflection: true\n",
			`service "loadgate.echo.v1.Echo" has no method "Shout" (it has Say, Stream)`},
		{"field the message lacks", "    method: loadgate.echo.v1.Echo/Say\n    reflection: true\n    message: { colour: red }\n",
			`unknown field "colour"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewShared(context.Background(), target(t, srv.addr, tt.body))
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
		})
	}
}

func TestConnectionsShared(t *testing.T) {
	srv := startEcho(t)
	tg := target(t, srv.addr, protoSay+"    connections: 3\n")
	s, err := NewShared(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var connects int
	for w := range 6 {
		c, err := s.NewClient(tg, w)
		if err != nil {
			t.Fatal(err)
		}
		var out protocols.Outcome
		c.Do(context.Background(), 0, &out)
		if out.Kind != protocols.KindNone {
			t.Fatalf("worker %d: %v %v", w, out.Kind, out.Err)
		}
		if out.Connect > 0 {
			connects++
		}
	}
	if n := srv.accepted.Load(); n != 3 {
		t.Errorf("server accepted %d connections, want 3", n)
	}
	if connects != 3 {
		t.Errorf("%d calls reported a handshake, want 3 (one per connection)", connects)
	}
}

func TestCancelledPhaseEndsACall(t *testing.T) {
	srv := startEcho(t)
	tg := target(t, srv.addr, protoSay+"    message: { text: hang }\n")
	s, err := NewShared(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _ := s.NewClient(tg, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan protocols.Outcome)
	go func() {
		var out protocols.Outcome
		c.Do(ctx, 0, &out)
		done <- out
	}()
	cancel()
	if out := <-done; out.Kind != protocols.KindTimeout {
		t.Errorf("kind = %v (%v), want timeout", out.Kind, out.Err)
	}
}

func TestServerGoneMidCallIsReset(t *testing.T) {
	srv := startEcho(t)
	tg := target(t, srv.addr, protoSay+"    message: { text: hang }\n")
	s, err := NewShared(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _ := s.NewClient(tg, 0)
	done := make(chan protocols.Outcome)
	go func() {
		var out protocols.Outcome
		c.Do(context.Background(), 0, &out)
		done <- out
	}()
	<-srv.hanging
	srv.srv.Stop()
	if out := <-done; out.Kind != protocols.KindReset {
		t.Errorf("kind = %v (%v), want reset", out.Kind, out.Err)
	}
}
