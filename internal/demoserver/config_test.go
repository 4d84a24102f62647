package demoserver

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlags(t *testing.T) {
	// knobs is the comparable part of Config (the Logger is not comparable).
	type knobs struct {
		HTTPAddr   string
		TCPAddr    string
		Delay      time.Duration
		Jitter     time.Duration
		DelayDist  DelayDist
		ErrorRate  float64
		StallEvery time.Duration
		StallFor   time.Duration
		CloseAfter int
		Seed       uint64

		HTTP2        bool
		HTTPSAddr    string
		HTTPSNoHTTP2 bool
		CertFile     string
		GRPCAddr     string
		GRPCTLS      bool
		TCPStore     string
	}
	tests := []struct {
		name    string
		args    []string
		want    knobs
		wantErr string // substring; empty = must succeed
	}{
		{name: "defaults", args: nil, want: knobs{HTTPAddr: "127.0.0.1:8080"}},
		{name: "all knobs, double-dash",
			args: []string{"--http", "127.0.0.1:9000", "--delay", "5ms", "--jitter", "2ms", "--error-rate", "0.25", "--seed", "7"},
			want: knobs{HTTPAddr: "127.0.0.1:9000", Delay: 5 * time.Millisecond, Jitter: 2 * time.Millisecond, ErrorRate: 0.25, Seed: 7}},
		// A bare port must not mean every interface.
		{name: "bare port binds loopback", args: []string{"--http=:9001"}, want: knobs{HTTPAddr: "127.0.0.1:9001"}},
		{name: "IPv6 loopback", args: []string{"--http", "[::1]:0"}, want: knobs{HTTPAddr: "[::1]:0"}},
		{name: "localhost", args: []string{"--http", "localhost:0"}, want: knobs{HTTPAddr: "localhost:0"}},
		{name: "other 127/8 address", args: []string{"--http", "127.0.0.2:0"}, want: knobs{HTTPAddr: "127.0.0.2:0"}},
		{name: "error rate bounds are inclusive", args: []string{"--error-rate", "1"}, want: knobs{HTTPAddr: "127.0.0.1:8080", ErrorRate: 1}},
		{name: "accuracy knobs",
			args: []string{"--delay-dist", "exponential", "--stall", "1s/300ms", "--close-after", "3"},
			want: knobs{HTTPAddr: "127.0.0.1:8080", DelayDist: DelayExponential, StallEvery: time.Second, StallFor: 300 * time.Millisecond, CloseAfter: 3}},
		{name: "delay-dist normal", args: []string{"--delay-dist=normal"}, want: knobs{HTTPAddr: "127.0.0.1:8080", DelayDist: DelayNormal}},
		{name: "delay-dist uniform", args: []string{"--delay-dist", "uniform"}, want: knobs{HTTPAddr: "127.0.0.1:8080", DelayDist: DelayUniform}},
		{name: "delay-dist constant", args: []string{"--delay-dist", "constant"}, want: knobs{HTTPAddr: "127.0.0.1:8080"}},
		// A stall lasting all but a nanosecond of its window is still a stall.
		{name: "stall almost always", args: []string{"--stall", "1s/999999999ns"},
			want: knobs{HTTPAddr: "127.0.0.1:8080", StallEvery: time.Second, StallFor: time.Second - 1}},
		// 0/0 lets a script switch stalls off explicitly.
		{name: "stall off", args: []string{"--stall", "0/0"}, want: knobs{HTTPAddr: "127.0.0.1:8080"}},
		// The last --stall wins, like every other flag.
		{name: "stall repeated", args: []string{"--stall", "1s/300ms", "--stall", "2s/1s"},
			want: knobs{HTTPAddr: "127.0.0.1:8080", StallEvery: 2 * time.Second, StallFor: time.Second}},

		{name: "tcp listener", args: []string{"--tcp", exampleTCPAddr}, want: knobs{HTTPAddr: "127.0.0.1:8080", TCPAddr: exampleTCPAddr}},
		{name: "tcp bare port binds loopback", args: []string{"--tcp=:0"}, want: knobs{HTTPAddr: "127.0.0.1:8080", TCPAddr: "127.0.0.1:0"}},
		{name: "tcp on every interface refused", args: []string{"--tcp", "0.0.0.0:13888"}, wantErr: "not a loopback"},
		{name: "tcp store", args: []string{"--tcp", ":0", "--tcp-store", ":6379"},
			want: knobs{HTTPAddr: "127.0.0.1:8080", TCPAddr: "127.0.0.1:0", TCPStore: "127.0.0.1:6379"}},
		{name: "tcp store elsewhere refused", args: []string{"--tcp", ":0", "--tcp-store", "10.1.2.3:6379"}, wantErr: "not a loopback"}, // not dialled: the flag is refused before anything connects
		{name: "tcp store without tcp", args: []string{"--tcp-store", "127.0.0.1:6379"}, wantErr: "needs a TCP listener"},

		{name: "h2c", args: []string{"--http2"}, want: knobs{HTTPAddr: "127.0.0.1:8080", HTTP2: true}},
		{name: "https with certificate file", args: []string{"--https", ":8443", "--cert-out", "cert.pem"},
			want: knobs{HTTPAddr: "127.0.0.1:8080", HTTPSAddr: "127.0.0.1:8443", CertFile: "cert.pem"}},
		{name: "https refusing h2", args: []string{"--https", "[::1]:0", "--https-http1-only"},
			want: knobs{HTTPAddr: "127.0.0.1:8080", HTTPSAddr: "[::1]:0", HTTPSNoHTTP2: true}},
		{name: "grpc", args: []string{"--grpc", ":50051"}, want: knobs{HTTPAddr: "127.0.0.1:8080", GRPCAddr: "127.0.0.1:50051"}},
		{name: "grpc over TLS", args: []string{"--grpc", "localhost:0", "--grpc-tls", "--cert-out", "c.pem"},
			want: knobs{HTTPAddr: "127.0.0.1:8080", GRPCAddr: "localhost:0", GRPCTLS: true, CertFile: "c.pem"}},
		{name: "https on every interface refused", args: []string{"--https", "0.0.0.0:8443"}, wantErr: "not a loopback"},
		{name: "grpc on every interface refused", args: []string{"--grpc", "[::]:50051"}, wantErr: "not a loopback"},
		{name: "cert-out without TLS", args: []string{"--cert-out", "c.pem", "--grpc", ":0"}, wantErr: "needs a TLS listener"},
		{name: "https-http1-only without https", args: []string{"--https-http1-only"}, wantErr: "needs an HTTPS listener"},
		{name: "grpc-tls without grpc", args: []string{"--grpc-tls", "--https", ":0"}, wantErr: "needs a gRPC listener"},

		{name: "error rate above 1", args: []string{"--error-rate", "1.5"}, wantErr: "error rate"},
		{name: "error rate negative", args: []string{"--error-rate", "-0.1"}, wantErr: "error rate"},
		{name: "error rate NaN", args: []string{"--error-rate", "NaN"}, wantErr: "error rate"},
		{name: "error rate not a number", args: []string{"--error-rate", "half"}, wantErr: "invalid value"},
		{name: "negative delay", args: []string{"--delay", "-1s"}, wantErr: "delay"},
		{name: "negative jitter", args: []string{"--jitter", "-1ms"}, wantErr: "jitter"},
		{name: "unknown delay-dist", args: []string{"--delay-dist", "pareto"}, wantErr: "pareto"},
		{name: "delay-dist is case-sensitive", args: []string{"--delay-dist", "Normal"}, wantErr: "unknown"},
		{name: "stall without slash", args: []string{"--stall", "1s"}, wantErr: "EVERY/FOR"},
		{name: "stall bad EVERY", args: []string{"--stall", "often/300ms"}, wantErr: "EVERY"},
		{name: "stall bad FOR", args: []string{"--stall", "1s/long"}, wantErr: "FOR"},
		{name: "stall FOR equals EVERY", args: []string{"--stall", "1s/1s"}, wantErr: "shorter"},
		{name: "stall FOR longer than EVERY", args: []string{"--stall", "300ms/1s"}, wantErr: "shorter"},
		{name: "stall FOR missing", args: []string{"--stall", "1s/0"}, wantErr: "both"},
		{name: "stall EVERY missing", args: []string{"--stall", "0/300ms"}, wantErr: "both"},
		{name: "stall negative", args: []string{"--stall", "-1s/300ms"}, wantErr: "negative"},
		{name: "close-after negative", args: []string{"--close-after", "-1"}, wantErr: "close-after"},
		{name: "close-after not a number", args: []string{"--close-after", "3.5"}, wantErr: "invalid value"},
		{name: "all interfaces refused", args: []string{"--http", "0.0.0.0:8080"}, wantErr: "not a loopback"},
		{name: "IPv6 any refused", args: []string{"--http", "[::]:8080"}, wantErr: "not a loopback"},
		{name: "LAN address refused", args: []string{"--http", "192.168.1.10:8080"}, wantErr: "not a loopback"}, // not dialled: the flag is refused before anything listens
		{name: "hostname refused", args: []string{"--http", "example.com:80"}, wantErr: "not a loopback"},
		{name: "missing port", args: []string{"--http", "127.0.0.1"}, wantErr: "HOST:PORT"},
		{name: "port out of range", args: []string{"--http", "127.0.0.1:70000"}, wantErr: "port"},
		{name: "empty address", args: []string{"--http", ""}, wantErr: "--http"},
		{name: "unknown flag", args: []string{"--tls"}, wantErr: "not defined"},
		{name: "positional argument", args: []string{"extra"}, wantErr: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			got := knobs{cfg.HTTPAddr, cfg.TCPAddr, cfg.Delay, cfg.Jitter, cfg.DelayDist, cfg.ErrorRate, cfg.StallEvery, cfg.StallFor, cfg.CloseAfter, cfg.Seed,
				cfg.HTTP2, cfg.HTTPSAddr, cfg.HTTPSNoHTTP2, cfg.CertFile, cfg.GRPCAddr, cfg.GRPCTLS, cfg.TCPStore}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseFlagsHelp(t *testing.T) {
	var stderr strings.Builder
	_, err := parseFlags([]string{"-h"}, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"loadgate serve", "-http", "-error-rate", "-seed",
		"-delay-dist distribution", "exponential", "-stall EVERY/FOR", "-close-after N", "-tcp address", "-tcp-store address",
		"-http2", "-https address", "-cert-out file", "-grpc address", "-grpc-tls", "-https-http1-only"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage does not mention %q:\n%s", want, stderr.String())
		}
	}
}

func TestParseFlagsUsers(t *testing.T) {
	good := filepath.Join(t.TempDir(), "users.csv")
	if err := os.WriteFile(good, []byte("name,password\nann,a1\nbob,b2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		want    []User
		wantErr string // substring; empty = must succeed
	}{
		{name: "default table", args: nil, want: defaultUsers(defaultUserCount)},
		{name: "file", args: []string{"--users", good}, want: []User{{"ann", "a1"}, {"bob", "b2"}}},
		// The bundled file is the default table, spelled out.
		{name: "testdata file", args: []string{"--users=" + usersCSV}, want: defaultUsers(defaultUserCount)},
		{name: "missing file", args: []string{"--users", filepath.Join(t.TempDir(), "nope.csv")}, wantErr: "nope.csv"},
		{name: "empty name", args: []string{"--users", ""}, wantErr: "users"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tt.want, cfg.Users); diff != "" {
				t.Errorf("Users (-want +got):\n%s", diff)
			}
		})
	}
}

// parseFlags parses args as the command line of "loadgate serve" does:
// RegisterFlags, then CheckFlags.
func parseFlags(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: loadgate serve [flags]\n\n"+
			"Runs the built-in target server on loopback until interrupted.\n\nflags:\n")
		fs.PrintDefaults()
	}
	var cfg Config
	RegisterFlags(fs, &cfg)
	if err := fs.Parse(args); err != nil {
		// The flag package has already printed the problem and the usage.
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	return CheckFlags(cfg)
}
