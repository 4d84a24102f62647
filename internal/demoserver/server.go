package demoserver

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Stats are the server's counters since Start. /stats serves them as JSON.
type Stats struct {
	// Accepted is the number of TCP connections accepted by every
	// listener, counted at the listener so it is exact: N short-connection
	// requests give N, N keep-alive requests on one connection give 1.
	Accepted int64 `json:"accepted"`

	// TCPAccepted, TLSAccepted and GRPCAccepted are the parts of Accepted
	// that the framed TCP, the HTTPS and the gRPC listeners accepted.
	TCPAccepted  int64 `json:"tcp_accepted"`
	TLSAccepted  int64 `json:"tls_accepted"`
	GRPCAccepted int64 `json:"grpc_accepted"`

	// Frames is the number of complete frames the TCP listener received.
	Frames int64 `json:"frames"`

	// Requests is the number of HTTP requests that reached the router,
	// including /health, /stats (a /stats response counts itself) and 404s.
	Requests int64 `json:"requests"`

	// HTTP1Requests and HTTP2Requests split Requests by the protocol
	// version the request arrived with, over TLS or not: a client that
	// asked for HTTP/2 and fell back to HTTP/1.1 shows up here.
	HTTP1Requests int64 `json:"http1_requests"`
	HTTP2Requests int64 `json:"http2_requests"`

	// HTTP2Refused counts HTTP/2 prefaces sent to the cleartext listener
	// while it does not speak h2c (no Config.HTTP2): each is answered 505
	// and its connection closed, and it is not counted in Requests.
	HTTP2Refused int64 `json:"http2_refused"`

	// Errors is the number of injected errors (ErrorRate): 500 responses,
	// TCP error frames, gRPC UNAVAILABLE statuses and WebSocket closes.
	// Statuses asked for explicitly with /status/N are not counted.
	Errors int64 `json:"errors"`

	// GRPC counts the gRPC calls that ended, per full method
	// ("/loadgate.echo.v1.Echo/Say", the health and reflection services
	// too) and status code name ("OK", "UNAVAILABLE", ...). Left out until
	// a call ends.
	GRPC map[string]map[string]int64 `json:"grpc,omitempty"`

	// GRPCMessages is the number of response messages the echo service
	// sent: one per Say, n per Stream.
	GRPCMessages int64 `json:"grpc_messages"`

	// WSConnections is the number of WebSocket connections /ws accepted,
	// WSMessages the number of messages it received (text and binary).
	WSConnections int64 `json:"ws_connections"`
	WSMessages    int64 `json:"ws_messages"`

	// API counts what the /api routes answered, per endpoint (login,
	// items, item, orders, order) and status code ("200", "401", ...;
	// injected errors are "500"). Endpoints that served nothing are left
	// out, and so is the whole map until the API is used.
	API map[string]map[string]int64 `json:"api,omitempty"`

	// Logins counts the successful logins of each user name, leaving out
	// users who never logged in: a test that hands every row of a user
	// file out once expects 1 for each of them.
	Logins map[string]int64 `json:"logins,omitempty"`

	// Sessions and StoredOrders are how many login tokens and orders the
	// API holds, never more than its bounds (defaultMaxSessions,
	// defaultMaxOrders).
	Sessions     int `json:"sessions"`
	StoredOrders int `json:"stored_orders"`

	// Capacity holds the counters of the capacity model, nil (left out)
	// without Config.Capacity.
	Capacity *CapacityStats `json:"capacity,omitempty"`

	// Store holds the counters of the TCP listener's database, nil (left
	// out) without Config.TCPStore.
	Store *StoreStats `json:"store,omitempty"`
}

// StoreStats are the counters of the Redis store behind the TCP listener.
type StoreStats struct {
	// Stored is the number of messages pushed onto the list.
	Stored int64 `json:"stored"`
	// Errors is the number of messages the store failed to keep, each
	// answered with an error frame.
	Errors int64 `json:"errors"`
	// Dials is the number of connections the pool opened to Redis: at
	// most its size, however many agents connect, unless Redis dropped
	// some and they were opened again.
	Dials int64 `json:"dials"`
}

// counters are updated by every connection and handler goroutine, so they
// are atomics rather than a mutex-guarded Stats.
type counters struct {
	accepted     atomic.Int64
	tcpAccepted  atomic.Int64
	tlsAccepted  atomic.Int64
	grpcAccepted atomic.Int64
	frames       atomic.Int64
	requests     atomic.Int64
	http1        atomic.Int64
	http2        atomic.Int64
	http2Refused atomic.Int64
	errors       atomic.Int64
	grpcMessages atomic.Int64
	wsConns      atomic.Int64
	wsMessages   atomic.Int64
	stored       atomic.Int64
	storeErrors  atomic.Int64
}

// Server is a running built-in target server. It is created by Start and
// must be stopped with Close. Its methods are safe for concurrent use.
type Server struct {
	cfg     Config
	seed    uint64
	faults  *faults
	ctr     counters
	handler http.Handler
	api     *api
	pool    *capacityPool // nil without Config.Capacity
	log     zerolog.Logger

	httpLn  net.Listener
	httpSrv *http.Server

	// The TLS side: the in-memory certificate and, with HTTPSAddr, a
	// second http.Server (see startHTTPS). nil when not configured.
	tls      *selfSigned
	httpsLn  net.Listener
	httpsSrv *http.Server

	// grpc is the gRPC listener and server, nil without GRPCAddr.
	grpc *grpcSide

	// The framed TCP side has no http.Server to track its connections, so
	// it keeps them itself, to close them on shutdown.
	tcpLn     net.Listener
	tcpMu     sync.Mutex
	tcpConns  map[net.Conn]struct{}
	tcpClosed bool
	store     *redisStore // nil without Config.TCPStore

	// base is the parent of every request context. Cancelling it on shutdown
	// wakes handlers sleeping in a delay or a stall, which http.Server.Close
	// alone would leave running until the sleep ended.
	base   context.Context
	cancel context.CancelFunc

	// stopAfter detaches the shutdown hook registered on Start's context;
	// afterDone is closed when that hook has finished, if it ever ran.
	stopAfter func() bool
	afterDone chan struct{}

	// serving counts Serve goroutines; conns counts open connections via
	// http.Server.ConnState. A connection reports StateClosed only after its
	// handler has returned, so waiting on conns also waits for handlers.
	serving sync.WaitGroup
	conns   sync.WaitGroup

	shutdownOnce sync.Once
	shutdownErr  error
	closeOnce    sync.Once
}

// newServer validates cfg and builds a Server with its handler but without
// listening, so the request path can be benchmarked in-process.
func newServer(cfg Config) (*Server, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, fmt.Errorf("demoserver: %w", err)
	}
	// The epoch is taken before listening, so no request can precede it.
	f, seed := newFaults(cfg, time.Now())
	s := &Server{
		cfg:       cfg,
		seed:      seed,
		faults:    f,
		log:       cfg.Logger.With().Str("component", "demoserver").Logger(),
		afterDone: make(chan struct{}),
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.api = newAPI(cfg.Users, cfg.maxSessions, cfg.maxOrders)
	if cfg.Capacity > 0 {
		s.pool = newCapacityPool(cfg)
	}
	s.handler = s.routes()
	return s, nil
}

// Start listens on cfg.HTTPAddr and serves in the background. It returns
// once the listener is open, so HTTPAddr is immediately usable. Cancelling
// ctx stops the server as Close does, but the caller must still call Close
// to wait for it to finish.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	// Listening does not consult ctx, and a server that would stop at once
	// is never what the caller meant.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("demoserver: %w", err)
	}
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.makeCert(); err != nil {
		s.cancel()
		return nil, err
	}
	for _, start := range []func(context.Context) error{s.startHTTP, s.startHTTPS, s.startTCP, s.startGRPC} {
		if err := start(ctx); err != nil {
			// Stop whatever already started, as Close would.
			s.shutdown()
			s.serving.Wait()
			s.conns.Wait()
			return nil, err
		}
	}
	s.stopAfter = context.AfterFunc(ctx, func() {
		defer close(s.afterDone)
		s.shutdown()
	})
	s.log.Info().
		Str("http", s.HTTPAddr()).
		Str("tcp", s.TCPAddr()).
		Str("tcp_store", s.cfg.TCPStore).
		Str("https", s.HTTPSAddr()).
		Str("grpc", s.GRPCAddr()).
		Bool("h2c", s.cfg.HTTP2).
		Dur("delay", s.cfg.Delay).
		Dur("jitter", s.cfg.Jitter).
		Stringer("delay_dist", s.cfg.DelayDist).
		Float64("error_rate", s.cfg.ErrorRate).
		Dur("stall_every", s.cfg.StallEvery).
		Dur("stall_for", s.cfg.StallFor).
		Int("close_after", s.cfg.CloseAfter).
		Float64("capacity", s.cfg.Capacity).
		Int("capacity_workers", s.cfg.CapacityWorkers).
		Int("capacity_queue", s.cfg.CapacityQueue).
		Int("users", len(s.cfg.Users)).
		Uint64("seed", s.seed).
		Msg("demo server listening")
	return s, nil
}

// startHTTP opens the HTTP listener and starts serving it. A framed TCP
// listener gets a sibling of this function; both share faults, counters,
// base context and the WaitGroups that Close waits on.
func (s *Server) startHTTP(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("demoserver: listen http: %w", err)
	}
	s.httpLn = &countingListener{Listener: ln, accepted: &s.ctr.accepted}
	// HTTP/2 over cleartext is prior knowledge only (no Upgrade: h2c), the
	// form h2load and gRPC use; net/http has served it since Go 1.24, so
	// no h2c wrapper from golang.org/x/net is needed.
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(s.cfg.HTTP2)
	s.httpSrv = s.newHTTPServer(&p)
	s.serving.Go(func() {
		if err := s.httpSrv.Serve(s.httpLn); !errors.Is(err, http.ErrServerClosed) {
			s.log.Error().Err(err).Msg("http serve stopped")
		}
	})
	return nil
}

// newHTTPServer returns an http.Server for the routes speaking protocols,
// wired to the server's base context, connection tracking and logger.
func (s *Server) newHTTPServer(protocols *http.Protocols) *http.Server {
	return &http.Server{
		Handler:   s.handler,
		Protocols: protocols,
		// A load generator may hold thousands of idle keep-alive
		// connections between phases; a generous IdleTimeout keeps them
		// reusable, while ReadHeaderTimeout stops a stalled client from
		// pinning a connection forever. No ReadTimeout/WriteTimeout: they
		// would cut off large /echo and /bytes transfers on slow machines.
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return s.base },
		ConnContext:       s.connContext,
		ConnState:         s.trackConn,
		ErrorLog:          log.New(httpErrorLog{s.log}, "", 0),
	}
}

// trackConn keeps conns equal to the number of open connections. StateNew
// is reported on the Serve goroutine before Serve can return, so every Add
// happens before Close's Wait.
func (s *Server) trackConn(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.conns.Done()
	}
}

// servedKey is the context key of a connection's *atomic.Int64 count of
// requests served, present only when Config.CloseAfter is set.
type servedKey struct{}

// connContext gives each connection its own request count for CloseAfter.
// An atomic because with HTTP/2 requests on one connection could run
// concurrently, even though HTTP/1.1 serves them one at a time.
func (s *Server) connContext(ctx context.Context, _ net.Conn) context.Context {
	if s.faults.closeAfter == 0 {
		return ctx
	}
	return context.WithValue(ctx, servedKey{}, new(atomic.Int64))
}

// HTTPAddr returns the address the HTTP listener is bound to, with the port
// resolved when Config.HTTPAddr asked for port 0.
func (s *Server) HTTPAddr() string { return s.httpLn.Addr().String() }

// Seed returns the seed of the server's random source: Config.Seed, or the
// randomly chosen one when that was 0. Passing it back as Config.Seed
// replays the same sequence of delays and error decisions.
func (s *Server) Seed() uint64 { return s.seed }

// Started returns the instant stall windows are counted from (see
// Config.StallEvery): window k starts at Started().Add(k*StallEvery). It is
// taken just before the listener opens and carries a monotonic clock
// reading, so time.Until(Started().Add(d)) aims at a window exactly.
func (s *Server) Started() time.Time { return s.faults.epoch }

// Stats returns the counters so far. The numbers are read one after the
// other, not as an atomic snapshot.
func (s *Server) Stats() Stats {
	st := Stats{
		Accepted:      s.ctr.accepted.Load(),
		TCPAccepted:   s.ctr.tcpAccepted.Load(),
		TLSAccepted:   s.ctr.tlsAccepted.Load(),
		GRPCAccepted:  s.ctr.grpcAccepted.Load(),
		Frames:        s.ctr.frames.Load(),
		Requests:      s.ctr.requests.Load(),
		HTTP1Requests: s.ctr.http1.Load(),
		HTTP2Requests: s.ctr.http2.Load(),
		HTTP2Refused:  s.ctr.http2Refused.Load(),
		Errors:        s.ctr.errors.Load(),
		GRPCMessages:  s.ctr.grpcMessages.Load(),
		WSConnections: s.ctr.wsConns.Load(),
		WSMessages:    s.ctr.wsMessages.Load(),
	}
	s.api.stats(&st)
	if s.grpc != nil {
		st.GRPC = s.grpc.calls.snapshot()
	}
	if s.pool != nil {
		st.Capacity = s.pool.stats()
	}
	if s.store != nil {
		st.Store = &StoreStats{Stored: s.ctr.stored.Load(), Errors: s.ctr.storeErrors.Load(), Dials: s.store.dialed()}
	}
	return st
}

// shutdown stops accepting, closes every connection and then cancels
// in-flight requests, without waiting for them. Connections are closed
// first so a cancelled handler can no longer get a response out. It may run from Close or from the hook on
// Start's context, whichever comes first.
func (s *Server) shutdown() {
	s.shutdownOnce.Do(func() {
		var errs []error
		if s.httpSrv != nil {
			errs = append(errs, s.httpSrv.Close())
		}
		if s.httpsSrv != nil {
			errs = append(errs, s.httpsSrv.Close())
		}
		errs = append(errs, s.closeTCP())
		// Cancelling before stopping gRPC wakes handlers held by a delay
		// or a stall; grpc.Server.Stop would otherwise wait for them.
		s.cancel()
		s.stopGRPC()
		s.shutdownErr = errors.Join(errs...)
	})
}

// Close stops the server: the listener is closed, in-flight requests are
// cancelled (including ones held by a delay or a stall), every connection is
// closed, and Close returns only when all of the server's goroutines have
// finished. It returns the error from closing the listener, if any. Calling
// it again returns the same result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if !s.stopAfter() {
			// The context hook already started; let it finish so no
			// goroutine of ours outlives Close.
			<-s.afterDone
		}
		s.shutdown()
		s.serving.Wait()
		s.conns.Wait()
		st := s.Stats()
		s.log.Info().
			Int64("accepted", st.Accepted).
			Int64("requests", st.Requests).
			Int64("frames", st.Frames).
			Int64("errors", st.Errors).
			Msg("demo server stopped")
	})
	return s.shutdownErr
}

// countingListener counts accepted connections at the source, which is the
// only place the count can be exact: the client may pool, retry or race.
// also, when not nil, is the listener's own count besides the total.
type countingListener struct {
	net.Listener
	accepted *atomic.Int64
	also     *atomic.Int64
}

// Accept implements net.Listener.
func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
		if l.also != nil {
			l.also.Add(1)
		}
	}
	return c, err
}

var _ net.Listener = (*countingListener)(nil)

// httpErrorLog routes net/http's internal messages into zerolog. Accept
// errors (e.g. out of file descriptors under heavy load) matter to someone
// reading a load-test result; everything else net/http says is about a
// single misbehaving request, so it stays at debug level to avoid logging
// per request.
type httpErrorLog struct{ log zerolog.Logger }

// Write implements io.Writer for log.Logger.
func (h httpErrorLog) Write(p []byte) (int, error) {
	msg := strings.TrimRight(string(p), "\n")
	lvl := zerolog.DebugLevel
	if strings.HasPrefix(msg, "http: Accept error") {
		lvl = zerolog.WarnLevel
	}
	h.log.WithLevel(lvl).Str("source", "net/http").Msg(msg)
	return len(p), nil
}
