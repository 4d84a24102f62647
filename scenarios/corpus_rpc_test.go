package scenarios

import (
	"fmt"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// sendsSomething reports whether a target has a request to send.
func sendsSomething(t Target) bool {
	switch {
	case t.HTTP != nil:
		return len(t.HTTP.Requests) > 0
	case t.TCP != nil:
		return len(t.TCP.Iteration) > 0
	case t.WebSocket != nil:
		return len(t.WebSocket.Iteration) > 0
	case t.GRPC != nil:
		return t.GRPC.Method != "" && (t.GRPC.Reflection || t.GRPC.Descriptor != nil)
	}
	return false
}

func init() {
	okChecks["http2"] = checkHTTP2
	okChecks["grpc"] = checkGRPC
	okChecks["websocket"] = checkWebSocket
}

// cmpDescriptor compares method descriptors by their full names: the
// descriptors themselves hold unexported state.
var cmpDescriptor = cmp.Comparer(func(a, b protoreflect.MethodDescriptor) bool {
	return (a == nil) == (b == nil) && (a == nil || a.FullName() == b.FullName())
})

// lit is a template of literal text.
func lit(s string) Template { return literalTemplate([]byte(s)) }

func checkHTTP2(t *testing.T, s *Scenario) {
	tests := []struct {
		target      string
		connections int
		requests    int
		flow        bool
	}{
		{"h2", 4, 1, false},
		{"h2c", 1, 2, false},
		{"h2c-flow", 2, 2, true},
	}
	if len(s.Targets) != len(tests) {
		t.Fatalf("%d targets, want %d", len(s.Targets), len(tests))
	}
	for i, tc := range tests {
		h := s.Targets[i].HTTP
		if s.Targets[i].Name != tc.target || !h.HTTP2 || !h.Keepalive || h.Connections != tc.connections ||
			len(h.Requests) != tc.requests || (h.Flow != nil) != tc.flow {
			t.Errorf("target %d = %q http2=%v keepalive=%v connections=%d requests=%d flow=%v; want %+v",
				i, s.Targets[i].Name, h.HTTP2, h.Keepalive, h.Connections, len(h.Requests), h.Flow != nil, tc)
		}
	}
}

func checkGRPC(t *testing.T, s *Scenario) {
	say := &GRPCTarget{
		Address: "127.0.0.1:50051", Method: "loadgate.echo.v1.Echo/Say", Service: "loadgate.echo.v1.Echo", MethodName: "Say",
		Message: Template{Parts: []TemplatePart{
			{Kind: PartLiteral, Literal: []byte(`{"text":"hello `)}, {Kind: PartWorker}, {Kind: PartLiteral, Literal: []byte("-")},
			{Kind: PartSeq}, {Kind: PartLiteral, Literal: []byte(`","n":"`)}, {Kind: PartRandInt, Min: 1, Max: 5},
			{Kind: PartLiteral, Literal: []byte(`"}`)},
		}},
		Metadata: []HeaderTemplate{
			{Name: "x-request-id", Value: Template{Parts: []TemplatePart{{Kind: PartUUID}}}},
			{Name: "authorization", Value: lit("Bearer s3cret-token")},
		},
		Timeout: 2 * time.Second, Connections: 4,
		Expect: GRPCExpect{Codes: []GRPCCode{GRPCCodeOK, 5}},
	}
	stream := &GRPCTarget{
		Address: "127.0.0.1:50051", TLS: &TLS{InsecureSkipVerify: true},
		Method: "loadgate.echo.v1.Echo/Stream", Service: "loadgate.echo.v1.Echo", MethodName: "Stream", ServerStream: true,
		Message: Template{Parts: []TemplatePart{
			{Kind: PartLiteral, Literal: []byte(`{"text": "tick `)}, {Kind: PartSeq}, {Kind: PartLiteral, Literal: []byte(`", "n": 3}`)},
		}},
		Timeout: defaultTimeout, Connections: 1, Expect: GRPCExpect{Codes: []GRPCCode{GRPCCodeOK}},
	}
	health := &GRPCTarget{
		Address: "127.0.0.1:50051", Method: "grpc.health.v1.Health/Check", Service: "grpc.health.v1.Health", MethodName: "Check",
		Reflection: true, Message: lit(`{"service":""}`),
		Timeout: defaultTimeout, Connections: 1, Expect: GRPCExpect{Codes: []GRPCCode{GRPCCodeOK}},
	}
	for i, want := range []*GRPCTarget{say, stream, health} {
		got := s.Targets[i].GRPC
		if diff := cmp.Diff(want, got, cmpDescriptor, cmpopts.IgnoreFields(GRPCTarget{}, "Descriptor"), ignoreSessions, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("target %s (-want +got):\n%s", s.Targets[i].Name, diff)
		}
	}
	for i, want := range []protoreflect.FullName{"loadgate.echo.v1.Echo.Say", "loadgate.echo.v1.Echo.Stream", ""} {
		d := s.Targets[i].GRPC.Descriptor
		switch {
		case want == "" && d != nil:
			t.Errorf("target %s: descriptor %s, want none (reflection)", s.Targets[i].Name, d.FullName())
		case want != "" && (d == nil || d.FullName() != want || d.Input().FullName() != "loadgate.echo.v1.SayRequest"):
			t.Errorf("target %s: descriptor %v, want %s taking a SayRequest", s.Targets[i].Name, d, want)
		}
	}
	if got := s.Redact("Bearer s3cret-token"); got == "Bearer s3cret-token" {
		t.Errorf("the authorization metadata is not redacted: %q", got)
	}
}

func checkWebSocket(t *testing.T, s *Scenario) {
	chat := &WebSocketTarget{
		URL: "ws://127.0.0.1:8080/ws/echo", Headers: []Header{{"Origin", "http://127.0.0.1:8080"}},
		Timeout: 5 * time.Second, MaxMessage: 64 << 10,
		OnConnect: []WSStep{
			{Kind: WSSendText, Pos: Pos{s.File, 13, 11}, Payload: Template{Parts: []TemplatePart{
				{Kind: PartLiteral, Literal: []byte(`{"op":"hello","worker":`)}, {Kind: PartWorker}, {Kind: PartLiteral, Literal: []byte("}")}}}},
			{Kind: WSExpect, Pos: Pos{s.File, 14, 11}, Expect: WSExpectCheck{Contains: []byte("hello")}},
		},
		Iteration: []WSStep{
			{Kind: WSSendText, Pos: Pos{s.File, 16, 11}, Payload: Template{Parts: []TemplatePart{
				{Kind: PartLiteral, Literal: []byte("ping ")}, {Kind: PartSeq}}}},
			{Kind: WSExpect, Pos: Pos{s.File, 17, 11}, Expect: WSExpectCheck{Regex: regexp.MustCompile(`^ping [0-9]+$`)}},
			{Kind: WSSendBinary, Pos: Pos{s.File, 18, 11}, Payload: Template{Parts: []TemplatePart{
				{Kind: PartLiteral, Literal: []byte("raw ")}, {Kind: PartUUID}}}},
			{Kind: WSExpect, Pos: Pos{s.File, 19, 11}},
			{Kind: WSSendBinary, Pos: Pos{s.File, 20, 11}, Payload: lit("\xde\xad\xbe\xef")},
			{Kind: WSExpect, Pos: Pos{s.File, 21, 11}, Expect: WSExpectCheck{Contains: []byte("ok")}},
		},
	}
	short := &WebSocketTarget{
		URL: "wss://localhost:8443/ws/echo", TLS: TLS{InsecureSkipVerify: true}, Connection: PerIteration,
		Timeout: defaultTimeout, MaxMessage: defaultMaxMessage,
		Iteration: []WSStep{
			{Kind: WSSendText, Pos: Pos{s.File, 28, 11}, Payload: lit("hi")},
			{Kind: WSExpect, Pos: Pos{s.File, 29, 11}, Expect: WSExpectCheck{Equals: []byte("hi")}},
		},
	}
	for i, want := range []*WebSocketTarget{chat, short} {
		if diff := cmp.Diff(want, s.Targets[i].WebSocket, cmpRegexp, ignoreSessions, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("target %s (-want +got):\n%s", s.Targets[i].Name, diff)
		}
	}
}

// protocols counts the protocol blocks of a target; a valid one has one.
func protocols(t Target) int {
	n := 0
	for _, set := range []bool{t.HTTP != nil, t.TCP != nil, t.GRPC != nil, t.WebSocket != nil} {
		if set {
			n++
		}
	}
	return n
}

// checkRPC states what the gRPC and WebSocket clients may rely on about a
// parsed target; it returns what is wrong, or "".
func checkRPC(t Target) string {
	if h := t.HTTP; h != nil && (h.HTTP2 != (h.Connections >= 1) || (h.HTTP2 && !h.Keepalive)) {
		return fmt.Sprintf("http2 %v with %d connections, keepalive %v", h.HTTP2, h.Connections, h.Keepalive)
	}
	if g := t.GRPC; g != nil {
		switch {
		case g.Address == "" || g.Service == "" || g.MethodName == "" || g.Method != g.Service+"/"+g.MethodName:
			return fmt.Sprintf("grpc address %q method %q (%q / %q)", g.Address, g.Method, g.Service, g.MethodName)
		case g.Reflection == (g.Descriptor != nil):
			return fmt.Sprintf("grpc reflection %v with descriptor %v", g.Reflection, g.Descriptor)
		case g.Descriptor != nil && (string(g.Descriptor.FullName()) != g.Service+"."+g.MethodName || g.Descriptor.IsStreamingClient() || g.Descriptor.IsStreamingServer() != g.ServerStream):
			return fmt.Sprintf("grpc descriptor %s for %s, server stream %v", g.Descriptor.FullName(), g.Method, g.ServerStream)
		case g.Connections < 1 || g.Timeout <= 0 || len(g.Expect.Codes) == 0 || g.Message.MaxLen() == 0:
			return fmt.Sprintf("grpc connections %d timeout %v codes %v message %v", g.Connections, g.Timeout, g.Expect.Codes, g.Message)
		}
		for _, c := range g.Expect.Codes {
			if int(c) >= len(grpcCodeNames) {
				return fmt.Sprintf("grpc code %d", c)
			}
		}
	}
	if w := t.WebSocket; w != nil {
		u, err := url.Parse(w.URL)
		switch {
		case err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Hostname() == "":
			return fmt.Sprintf("websocket url %q", w.URL)
		case len(w.Iteration) == 0 || w.Timeout <= 0 || w.MaxMessage <= 0:
			return fmt.Sprintf("websocket iteration %d steps, timeout %v, max message %d", len(w.Iteration), w.Timeout, w.MaxMessage)
		}
	}
	return ""
}
