package grpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// Shared is what the workers of one gRPC case share: its connections and
// the method they call. The engine makes it once per case (NewShared) and
// makes every worker's client with its NewClient.
type Shared struct {
	target *scenarios.GRPCTarget
	conns  []*conn
	method protoreflect.MethodDescriptor
	path   string // "/pkg.Service/Method"
	stream bool   // server streaming
	// static is the request's wire form when the message has no
	// placeholders; nil when each call renders its own.
	static     mem.BufferSlice
	staticSize int
	opts       []grpc.CallOption
}

// conn is one of a case's connections, with what its dialer saw: the
// engine reports handshake time with the next call that ends on the
// connection, and tells a connection that could not be made from a status
// the server sent.
type conn struct {
	cc *grpc.ClientConn
	// handshakes holds the handshake time (TCP, + TLS) of connections made
	// since a call last reported it, in nanoseconds.
	handshakes atomic.Int64
	// dialFailed is set while the last attempt to connect failed.
	dialFailed atomic.Bool
	// lost is set when the connection's socket failed (reset, closed by
	// the server), before the library fails the calls it carried.
	lost atomic.Bool
}

// watchedConn marks its connection lost when the socket fails.
type watchedConn struct {
	net.Conn
	c *conn
}

func (w watchedConn) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if err != nil {
		w.c.lost.Store(true)
	}
	return n, err
}

func (w watchedConn) Write(b []byte) (int, error) {
	n, err := w.Conn.Write(b)
	if err != nil {
		w.c.lost.Store(true)
	}
	return n, err
}

// NewShared makes the connections of gRPC target t and resolves its
// method, from the server's reflection service when t asks for it (within
// ctx and t's timeout). Connections are made lazily by the first call on
// each: a server that is down fails calls as `connect` errors, not the run.
func NewShared(ctx context.Context, t *scenarios.Target) (*Shared, error) {
	g := t.GRPC
	s := &Shared{target: g, path: "/" + g.Method, method: g.Descriptor, stream: g.ServerStream,
		opts: []grpc.CallOption{grpc.ForceCodecV2(codec{})}}
	creds, err := transportCreds(t.Name, g.TLS)
	if err != nil {
		return nil, err
	}
	for range max(1, g.Connections) {
		c, err := dial(g.Address, creds)
		if err != nil {
			_ = s.Close()
			return nil, fmt.Errorf("target %q: %w", t.Name, err)
		}
		s.conns = append(s.conns, c)
	}
	if g.Reflection {
		if err := s.reflect(ctx, t.Name); err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	if err := s.prepareMessage(t.Name); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// prepareMessage checks that the message builds and, when it has no
// placeholders, marshals it once for every call.
func (s *Shared) prepareMessage(target string) error {
	env := protocols.NewRenderEnv(0)
	env.Next()
	text := env.Render(nil, &s.target.Message)
	if len(text) == 0 {
		text = []byte("{}")
	}
	msg := dynamicpb.NewMessage(s.method.Input())
	if err := protojson.Unmarshal(text, msg); err != nil {
		return fmt.Errorf("target %q: message for %s: %w", target, s.target.Method, err)
	}
	if !hasPlaceholders(&s.target.Message) {
		st, n, err := staticRequest(msg)
		if err != nil {
			return fmt.Errorf("target %q: message for %s: %w", target, s.target.Method, err)
		}
		s.static, s.staticSize = st, n
	}
	return nil
}

func hasPlaceholders(t *scenarios.Template) bool {
	for i := range t.Parts {
		if t.Parts[i].Kind != scenarios.PartLiteral {
			return true
		}
	}
	return false
}

// Close closes every connection; calls still running on them fail.
func (s *Shared) Close() error {
	var errs []error
	for _, c := range s.conns {
		errs = append(errs, c.cc.Close())
	}
	return errors.Join(errs...)
}

// dial makes one lazily connecting client connection to address.
func dial(address string, creds credentials.TransportCredentials) (*conn, error) {
	c := &conn{}
	var d net.Dialer
	dialer := func(ctx context.Context, addr string) (net.Conn, error) {
		start := time.Now()
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			c.dialFailed.Store(true)
			return nil, err
		}
		c.dialFailed.Store(false)
		c.lost.Store(false)
		c.handshakes.Add(int64(time.Since(start)))
		return watchedConn{nc, c}, nil
	}
	cc, err := grpc.NewClient("passthrough:///"+address,
		grpc.WithTransportCredentials(timedCreds{creds, c}),
		grpc.WithContextDialer(dialer),
		// A load test wants a server that comes back to be used at once,
		// not after the library's backoff of up to two minutes.
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{
			BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: time.Second}),
		grpc.WithUserAgent("loadgate"),
	)
	if err != nil {
		return nil, fmt.Errorf("grpc %s: %w", address, err)
	}
	c.cc = cc
	return c, nil
}

// transportCreds are plaintext (h2c) credentials, or TLS ones with ALPN
// h2 for a target with a tls block.
func transportCreds(target string, t *scenarios.TLS) (credentials.TransportCredentials, error) {
	if t == nil {
		return insecure.NewCredentials(), nil
	}
	conf, err := protocols.TLSConfig(target, t)
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(conf), nil
}

// timedCreds adds the TLS handshake to a connection's handshake time, and
// marks a connection whose handshake failed as not made.
type timedCreds struct {
	credentials.TransportCredentials
	c *conn
}

// ClientHandshake runs the handshake of the wrapped credentials.
func (t timedCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	start := time.Now()
	nc, info, err := t.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil {
		t.c.dialFailed.Store(true)
		return nil, nil, err
	}
	t.c.handshakes.Add(int64(time.Since(start)))
	return nc, info, nil
}

// Clone keeps the timing on the clone.
func (t timedCreds) Clone() credentials.TransportCredentials {
	return timedCreds{t.TransportCredentials.Clone(), t.c}
}
