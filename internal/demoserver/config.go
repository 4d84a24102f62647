package demoserver

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/rs/zerolog"
)

// DefaultHTTPAddr is the address "loadgate serve" listens on when --http is
// not given.
const DefaultHTTPAddr = "127.0.0.1:8080"

// MaxBodyBytes is the largest body /bytes/N sends and /echo accepts: 10 MiB,
// the same as the default max_body of an HTTP target, so a transfer test
// never exceeds what the client reads by default.
const MaxBodyBytes = 10 << 20

// Config configures a Server. The zero value is a working server on a free
// loopback port with no faults.
type Config struct {
	// HTTPAddr is the HTTP listen address, e.g. "127.0.0.1:0" for a free
	// port. The host must be a loopback address or "localhost"; a bare
	// ":port" binds to 127.0.0.1. Empty means "127.0.0.1:0".
	HTTPAddr string

	// Delay is added before every response except /health and /stats.
	Delay time.Duration

	// Jitter adds a uniform random extra delay in [0, Jitter) on top of Delay.
	Jitter time.Duration

	// ErrorRate is the fraction of requests (0..1) answered with an injected
	// 500 instead of their normal response; /health and /stats never fail.
	ErrorRate float64

	// Seed seeds the server's own random source for Jitter and ErrorRate;
	// 0 picks a random seed (logged at start, and reported by Server.Seed).
	Seed uint64

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
	// Written as a negated range so NaN is refused too.
	if !(c.ErrorRate >= 0 && c.ErrorRate <= 1) {
		return c, fmt.Errorf("error rate %v is outside [0, 1]", c.ErrorRate)
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
	return c, nil
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

// ParseFlags parses the flags of "loadgate serve":
//
//	--http ADDR        HTTP listen address (default 127.0.0.1:8080; loopback only, :PORT binds 127.0.0.1)
//	--delay DURATION   delay before every response
//	--jitter DURATION  extra uniform random delay in [0, jitter)
//	--error-rate F     fraction of requests answered 500, in [0, 1]
//	--seed N           seed for jitter and errors (0 = random)
//
// Usage and flag errors are written to stderr. For -h/--help it returns
// flag.ErrHelp. The returned Config has a zero Logger; the caller sets its
// own. Any returned error other than flag.ErrHelp is a usage error.
func ParseFlags(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: loadgate serve [flags]\n\n"+
			"Runs the built-in target server on loopback until interrupted.\n\nflags:\n")
		fs.PrintDefaults()
	}

	var cfg Config
	fs.StringVar(&cfg.HTTPAddr, "http", DefaultHTTPAddr, "HTTP listen `address` (loopback only; :PORT binds 127.0.0.1)")
	fs.DurationVar(&cfg.Delay, "delay", 0, "`duration` added before every response (not /health, /stats)")
	fs.DurationVar(&cfg.Jitter, "jitter", 0, "extra uniform random delay in [0, `duration`)")
	fs.Float64Var(&cfg.ErrorRate, "error-rate", 0, "`fraction` of requests answered 500, in [0, 1]")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "`seed` for jitter and error injection (0 = random)")

	if err := fs.Parse(args); err != nil {
		// The flag package has already printed the problem and the usage.
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if cfg.HTTPAddr == "" {
		return Config{}, errors.New("serve: --http must not be empty")
	}
	valid, err := cfg.validate()
	if err != nil {
		return Config{}, fmt.Errorf("serve: %w", err)
	}
	return valid, nil
}
