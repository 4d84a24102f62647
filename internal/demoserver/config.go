package demoserver

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// defaultHTTPAddr is the address "loadgate serve" listens on when --http is
// not given.
const defaultHTTPAddr = "127.0.0.1:8080"

// exampleTCPAddr is the framed TCP address the documentation and examples
// use, the port of the monitor server in the classic long-versus-short
// connection study. The TCP listener is off unless an address is given.
const exampleTCPAddr = "127.0.0.1:13888"

// maxBodyBytes is the largest body /bytes/N sends and /echo accepts: 10 MiB,
// the same as the default max_body of an HTTP target, so a transfer test
// never exceeds what the client reads by default.
const maxBodyBytes = 10 << 20

// Config configures a Server. The zero value is a working server on a free
// loopback port with no faults.
type Config struct {
	// HTTPAddr is the HTTP listen address, e.g. "127.0.0.1:0" for a free
	// port. The host must be a loopback address or "localhost"; a bare
	// ":port" binds to 127.0.0.1. Empty means "127.0.0.1:0".
	HTTPAddr string

	// TCPAddr is the listen address of the framed TCP protocol (see
	// package doc), with the same rules as HTTPAddr; "127.0.0.1:0" picks a
	// free port. Empty means no TCP listener. HTTP is always served, so a
	// scenario mixing both kinds of target needs one server.
	TCPAddr string

	// TCPStore, when set, is the address of a Redis server, with the same
	// rules as HTTPAddr, that every monitor message after the handshake
	// on the TCP listener is stored in: pushed onto the list agent:items,
	// trimmed to its newest 10000 entries, over a pool of 4 connections
	// that every agent connection shares. A message the store fails to
	// keep is answered with an error frame. Start fails when Redis does
	// not answer. It needs TCPAddr.
	TCPStore string

	// HTTP2 makes the HTTP listener speak cleartext HTTP/2 (h2c) with prior
	// knowledge alongside HTTP/1.1: a connection that opens with the
	// HTTP/2 preface is served as HTTP/2. The Upgrade: h2c dance is not
	// supported, as by most servers and clients (h2load, gRPC).
	HTTP2 bool

	// HTTPSAddr, when set, serves the same routes over TLS there, with a
	// self-signed ECDSA P-256 certificate made in memory at Start (see
	// [Server.CertPEM]) and ALPN offering h2 and http/1.1. Same address
	// rules as HTTPAddr.
	HTTPSAddr string

	// HTTPSNoHTTP2 makes the TLS listener offer http/1.1 only, a server
	// that refuses h2, for testing how clients cope.
	HTTPSNoHTTP2 bool

	// CertFile, when set, is where Start writes the certificate's PEM (not
	// the key), for a scenario's tls.ca_file. It needs a TLS listener.
	CertFile string

	// GRPCAddr, when set, serves gRPC there: the echo service of
	// testdata/proto/echo.proto (loadgate.echo.v1.Echo), grpc.health.v1 and server
	// reflection. Same address rules as HTTPAddr.
	GRPCAddr string

	// GRPCTLS serves gRPC over TLS with the same certificate as HTTPSAddr.
	GRPCTLS bool

	// Delay is added before every response except /health and /stats. With
	// DelayDist DelayNormal it is the mean of the delay, otherwise its
	// minimum.
	Delay time.Duration

	// Jitter is the spread of the delay; its meaning depends on DelayDist.
	// 0 makes every distribution a fixed Delay.
	Jitter time.Duration

	// DelayDist is the distribution each request's delay is drawn from; the
	// zero value, DelayConstant, is a fixed Delay plus uniform Jitter.
	DelayDist DelayDist

	// StallEvery and StallFor freeze the whole server, like a
	// stop-the-world garbage collection: for StallFor at the start of every
	// StallEvery-long window, counted from [Server.Started], no response is
	// sent. A request arriving during a stall is answered only when the
	// stall ends, plus its delay; a response whose delay ends during a stall
	// waits for the stall to end. A response already being written is not
	// cut off. /health and /stats are never stalled.
	// Both 0 disables stalls; otherwise both must be positive and StallFor
	// shorter than StallEvery.
	StallEvery time.Duration
	StallFor   time.Duration

	// CloseAfter makes the server close a connection after it has served
	// CloseAfter requests on it: the last response carries
	// "Connection: close". Every request counts, /health and /stats too.
	// On the TCP listener every frame counts, and the connection is closed
	// right after the reply to the last one, without notice as a real
	// server would. 0 keeps connections open.
	CloseAfter int

	// ErrorRate is the fraction of requests (0..1) answered with an injected
	// 500 instead of their normal response; /health and /stats never fail.
	// On the TCP listener a failing frame is answered with an error frame,
	// {"T":"Error",...}, which a scenario's expect step catches.
	ErrorRate float64

	// Capacity, when positive, gives the HTTP routes a known capacity of
	// that many requests per second: they are served through a pool of
	// CapacityWorkers workers, each holding a request for a fixed service
	// time of CapacityWorkers/Capacity seconds before it is answered, so
	// throughput saturates at Capacity and queueing (latency growth)
	// starts there. A request that finds every worker busy waits, first
	// come first served; when CapacityQueue requests are already waiting
	// it is answered 503 at once. /health, /stats and /ws are exempt, and
	// so are the TCP and gRPC listeners. The service time is a timer, not
	// CPU work: the model is an I/O-bound server, and many workers cost
	// nothing on a machine with few cores. 0 turns the model off.
	Capacity float64

	// CapacityWorkers is the size of the pool; 0 means 8, or Capacity/1000
	// rounded up when that is more, so the service time stays at 1 ms or
	// more.
	CapacityWorkers int

	// CapacityQueue is how many requests may wait for a worker; 0 means
	// Capacity rounded up, one second of work.
	CapacityQueue int

	// Seed seeds the server's own random source for delays and ErrorRate;
	// 0 picks a random seed (logged at start, and reported by Server.Seed).
	Seed uint64

	// Users is the user table of POST /api/login; empty means
	// user1..user1000, password "pw-" and the name. Names must be unique and not empty.
	Users []User

	// maxSessions and maxOrders bound the API's stores; 0 means
	// defaultMaxSessions and defaultMaxOrders. Tests shrink them to see the
	// bound at work.
	maxSessions, maxOrders int

	// Logger receives start/stop events and net/http's rare internal errors;
	// requests are never logged. The zero value logs nothing.
	Logger zerolog.Logger
}

// validate checks the knobs and returns a copy with HTTPAddr normalised to a
// listenable loopback address.
func (c Config) validate() (Config, error) {
	if c.Delay < 0 {
		return c, fmt.Errorf("delay %v is negative", c.Delay)
	}
	if c.Jitter < 0 {
		return c, fmt.Errorf("jitter %v is negative", c.Jitter)
	}
	if c.DelayDist > DelayNormal {
		return c, fmt.Errorf("delay distribution %d is unknown", uint8(c.DelayDist))
	}
	// Written as a negated range so NaN is refused too.
	if !(c.ErrorRate >= 0 && c.ErrorRate <= 1) {
		return c, fmt.Errorf("error rate %v is outside [0, 1]", c.ErrorRate)
	}
	switch {
	case c.StallEvery < 0 || c.StallFor < 0:
		return c, fmt.Errorf("stall %v/%v: durations must not be negative", c.StallEvery, c.StallFor)
	case (c.StallEvery == 0) != (c.StallFor == 0):
		return c, fmt.Errorf("stall %v/%v: give both durations, or neither to disable stalls", c.StallEvery, c.StallFor)
	case c.StallFor >= c.StallEvery && c.StallEvery > 0:
		// A stall as long as its window would never end.
		return c, fmt.Errorf("stall %v/%v: FOR must be shorter than EVERY", c.StallEvery, c.StallFor)
	}
	if c.CloseAfter < 0 {
		return c, fmt.Errorf("close-after %d is negative", c.CloseAfter)
	}
	if err := c.validateCapacity(); err != nil {
		return c, err
	}
	if c.Capacity > 0 {
		w, q := capacityDefaults(c.Capacity)
		if c.CapacityWorkers == 0 {
			c.CapacityWorkers = w
		}
		if c.CapacityQueue == 0 {
			c.CapacityQueue = q
		}
	}
	if len(c.Users) == 0 {
		c.Users = defaultUsers(defaultUserCount)
	} else if err := checkUsers(c.Users, func(i int) string { return "Users[" + strconv.Itoa(i) + "]" }); err != nil {
		return c, fmt.Errorf("users: %w", err)
	}
	if c.maxSessions <= 0 {
		c.maxSessions = defaultMaxSessions
	}
	if c.maxOrders <= 0 {
		c.maxOrders = defaultMaxOrders
	}
	addr := c.HTTPAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	norm, err := loopbackAddr(addr)
	if err != nil {
		return c, err
	}
	c.HTTPAddr = norm
	for _, a := range []*string{&c.TCPAddr, &c.TCPStore, &c.HTTPSAddr, &c.GRPCAddr} {
		if *a != "" {
			if *a, err = loopbackAddr(*a); err != nil {
				return c, err
			}
		}
	}
	switch {
	case c.TCPStore != "" && c.TCPAddr == "":
		return c, errors.New("tcp-store needs a TCP listener (--tcp)")
	case c.HTTPSNoHTTP2 && c.HTTPSAddr == "":
		return c, errors.New("https-http1-only needs an HTTPS listener")
	case c.GRPCTLS && c.GRPCAddr == "":
		return c, errors.New("grpc-tls needs a gRPC listener")
	case c.CertFile != "" && !c.needsCert():
		return c, errors.New("cert-out needs a TLS listener (--https, or --grpc with --grpc-tls)")
	}
	return c, nil
}

// validateCapacity checks the capacity knobs before defaults are filled in.
func (c Config) validateCapacity() error {
	switch {
	// Negated so NaN is refused too; above 10⁸ req/s nothing real is modelled.
	case !(c.Capacity >= 0 && c.Capacity <= 1e8):
		return fmt.Errorf("capacity %v is outside [0, 1e8] requests/s", c.Capacity)
	case c.CapacityWorkers < 0 || c.CapacityWorkers > maxCapacityWorkers:
		return fmt.Errorf("capacity-workers %d is outside [1, %d]", c.CapacityWorkers, maxCapacityWorkers)
	case c.CapacityQueue < 0:
		return fmt.Errorf("capacity-queue %d is negative", c.CapacityQueue)
	case c.Capacity == 0 && (c.CapacityWorkers != 0 || c.CapacityQueue != 0):
		return errors.New("capacity-workers and capacity-queue need --capacity")
	}
	if c.Capacity == 0 {
		return nil
	}
	w := c.CapacityWorkers
	if w == 0 {
		w, _ = capacityDefaults(c.Capacity)
	}
	if st := serviceTime(c.Capacity, w); st < minServiceTime {
		return fmt.Errorf("capacity %v with %d workers gives a service time of %v, below %v: use more workers",
			c.Capacity, w, st, minServiceTime)
	}
	return nil
}

// loopbackAddr accepts host:port where host is a loopback IP, "localhost"
// or empty, and returns it with an empty host replaced by 127.0.0.1. An
// empty host would otherwise mean every interface, and this server is only
// meant to be reachable from the machine running the tests.
func loopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("address %q: want HOST:PORT or :PORT (%v)", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("address %q: port %q is not a number in 0..65535", addr, port)
	}
	switch host {
	case "":
		return net.JoinHostPort("127.0.0.1", port), nil
	case "localhost":
		return addr, nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return "", fmt.Errorf("address %q: host %q is not a loopback address; "+
			"the built-in server only listens on 127.0.0.1, ::1 or localhost", addr, host)
	}
	return addr, nil
}

// RegisterFlags adds the flags of "loadgate serve" to fs, each setting its
// field of cfg:
//
//	--http ADDR          HTTP listen address (default 127.0.0.1:8080; loopback only, :PORT binds 127.0.0.1)
//	--tcp ADDR           framed TCP listen address (u16 type + u32 length + body; off by default)
//	--tcp-store ADDR     store every monitor message of --tcp in the Redis server there
//	--http2              also speak cleartext HTTP/2 (h2c, prior knowledge) on --http
//	--https ADDR         serve the routes over TLS too (in-memory self-signed cert; ALPN h2, http/1.1)
//	--https-http1-only   offer only http/1.1 by ALPN on --https (a server that refuses h2)
//	--cert-out FILE      write the certificate's PEM there, for a scenario's tls.ca_file
//	--grpc ADDR          serve gRPC there: echo service, health and reflection (off by default)
//	--grpc-tls           serve gRPC over TLS with the same certificate
//	--delay DURATION     delay before every response (the mean for --delay-dist normal)
//	--jitter DURATION    spread of the delay, see --delay-dist
//	--delay-dist NAME    constant or uniform: delay + uniform [0, jitter);
//	                     exponential: delay + exponential with mean jitter;
//	                     normal: mean delay, stddev jitter, never below 0
//	--error-rate F       fraction of requests answered 500, in [0, 1]
//	--stall EVERY/FOR    freeze responses for FOR at the start of every EVERY, e.g. 1s/300ms
//	--close-after N      close each connection after N requests (0 = never)
//	--capacity N         serve HTTP routes at most N requests/s: a pool of workers, each
//	                     holding a request for workers/N seconds; queueing starts at N
//	--capacity-workers W size of that pool (default max(8, ⌈N/1000⌉))
//	--capacity-queue Q   requests that may wait for a worker before 503 (default ⌈N⌉)
//	--seed N             seed for delays and errors (0 = random)
//	--users FILE         CSV (name,password columns) of the users POST /api/login accepts
//
// [CheckFlags] then validates what was parsed.
func RegisterFlags(fs *flag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.HTTPAddr, "http", defaultHTTPAddr, "HTTP listen `address` (loopback only; :PORT binds 127.0.0.1)")
	fs.StringVar(&cfg.TCPAddr, "tcp", "", "also listen for framed TCP (u16 type + u32 big-endian length + body) on `address`,\n"+
		"e.g. "+exampleTCPAddr+" (loopback only; off when not given)")
	fs.StringVar(&cfg.TCPStore, "tcp-store", "", "store every monitor message after the handshake on --tcp in the Redis server\n"+
		"at `address` (LPUSH agent:items, kept to the newest 10000; a pool of 4 connections; loopback only)")
	fs.BoolVar(&cfg.HTTP2, "http2", false, "also speak cleartext HTTP/2 with prior knowledge (h2c) on the HTTP listener")
	fs.StringVar(&cfg.HTTPSAddr, "https", "", "also serve the routes over TLS on `address` with a self-signed certificate\n"+
		"made at start for 127.0.0.1, ::1 and localhost; ALPN offers h2 and http/1.1")
	fs.BoolVar(&cfg.HTTPSNoHTTP2, "https-http1-only", false, "offer only http/1.1 by ALPN on --https (a server that refuses h2)")
	fs.StringVar(&cfg.CertFile, "cert-out", "", "write the certificate's PEM to `file`, for a scenario's tls.ca_file")
	fs.StringVar(&cfg.GRPCAddr, "grpc", "", "also serve gRPC on `address`: "+echoService+" (Say, Stream),\n"+
		"grpc.health.v1.Health and server reflection (loopback only; off when not given)")
	fs.BoolVar(&cfg.GRPCTLS, "grpc-tls", false, "serve gRPC over TLS with the same self-signed certificate")
	fs.DurationVar(&cfg.Delay, "delay", 0, "`duration` added before every response (not /health, /stats);\n"+
		"the mean with --delay-dist normal")
	fs.DurationVar(&cfg.Jitter, "jitter", 0, "random spread of the delay (a `duration`), see --delay-dist")
	fs.TextVar(&cfg.DelayDist, "delay-dist", DelayConstant, "`distribution` of the delay:\n"+
		"  constant, uniform  delay + uniform [0, jitter)\n"+
		"  exponential        delay + exponential with mean jitter\n"+
		"  normal             mean delay, standard deviation jitter, never below 0")
	fs.Float64Var(&cfg.ErrorRate, "error-rate", 0, "`fraction` of requests answered 500 (TCP: an error frame), in [0, 1]")
	fs.Func("stall", "freeze every response but /health and /stats for FOR at the start\n"+
		"of every EVERY-long window since start (`EVERY/FOR`, e.g. 1s/300ms)", func(v string) error {
		every, dur, err := parseStall(v)
		cfg.StallEvery, cfg.StallFor = every, dur
		return err
	})
	fs.IntVar(&cfg.CloseAfter, "close-after", 0, "close each connection after serving `N` requests (TCP: frames) on it (0 = never)")
	fs.Float64Var(&cfg.Capacity, "capacity", 0, "serve HTTP routes (not /health, /stats, /ws) at most `N` requests/s:\n"+
		"a pool of workers each holding a request for workers/N seconds, so queueing starts at N (0 = off)")
	fs.IntVar(&cfg.CapacityWorkers, "capacity-workers", 0, "`W` workers of --capacity (0 = max(8, ⌈N/1000⌉))")
	fs.IntVar(&cfg.CapacityQueue, "capacity-queue", 0, "at most `Q` requests wait for a worker of --capacity; more are answered 503\n"+
		"(0 = ⌈N⌉, one second of work)")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "`seed` for delays and error injection (0 = random)")
	fs.Func("users", "user table of POST /api/login: a CSV `file` with a header row naming\n"+
		"name and password columns (default: user1..user1000, password pw-userN)", func(v string) error {
		users, err := loadUsers(v)
		cfg.Users = users
		return err
	})
}

// CheckFlags validates a Config set from the command line by the flags of
// [RegisterFlags]; its errors are usage errors.
func CheckFlags(cfg Config) (Config, error) {
	if cfg.HTTPAddr == "" {
		return Config{}, errors.New("serve: --http must not be empty")
	}
	valid, err := cfg.validate()
	if err != nil {
		return Config{}, fmt.Errorf("serve: %w", err)
	}
	return valid, nil
}

// parseStall parses the EVERY/FOR value of --stall. Range checks are left to
// Config.validate so that Start and the command line refuse the same values.
func parseStall(v string) (every, dur time.Duration, err error) {
	e, f, ok := strings.Cut(v, "/")
	if !ok {
		return 0, 0, errors.New("want EVERY/FOR, e.g. 1s/300ms")
	}
	if every, err = time.ParseDuration(e); err != nil {
		return 0, 0, fmt.Errorf("EVERY: %w", err)
	}
	if dur, err = time.ParseDuration(f); err != nil {
		return 0, 0, fmt.Errorf("FOR: %w", err)
	}
	return every, dur, nil
}

// DelayDist is the distribution of the per-request delay, set by Delay (D)
// and Jitter (J) in [Config]. It is a flag value: its text form is the name
// of its constant without the "Delay" prefix, in lower case.
type DelayDist uint8

const (
	// DelayConstant is D plus a uniform random extra in [0, J): with J = 0
	// the delay is exactly D. It is the same as DelayUniform, kept as the
	// default so that configurations from before DelayDist existed, and
	// their seeds, still give the same delays.
	DelayConstant DelayDist = iota

	// DelayUniform is uniform in [D, D+J).
	DelayUniform

	// DelayExponential is D plus an exponential with mean J: mostly fast
	// with a long tail, like a server that now and then waits on a lock.
	DelayExponential

	// DelayNormal is normal with mean D and standard deviation J; a negative
	// draw becomes 0, so with J comparable to D the mean is above D.
	DelayNormal
)

var delayDistNames = [...]string{
	DelayConstant:    "constant",
	DelayUniform:     "uniform",
	DelayExponential: "exponential",
	DelayNormal:      "normal",
}

// String returns the distribution's flag name, e.g. "exponential".
func (d DelayDist) String() string {
	if int(d) < len(delayDistNames) {
		return delayDistNames[d]
	}
	return "DelayDist(" + strconv.Itoa(int(d)) + ")"
}

// MarshalText implements encoding.TextMarshaler with the flag name.
func (d DelayDist) MarshalText() ([]byte, error) {
	if int(d) >= len(delayDistNames) {
		return nil, fmt.Errorf("delay distribution %d is unknown", uint8(d))
	}
	return []byte(delayDistNames[d]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: it accepts the flag
// names constant, uniform, exponential and normal.
func (d *DelayDist) UnmarshalText(text []byte) error {
	for i, name := range delayDistNames {
		if string(text) == name {
			*d = DelayDist(i)
			return nil
		}
	}
	return fmt.Errorf("delay distribution %q is unknown; want constant, uniform, exponential or normal", text)
}
