package demoserver

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	// knobs is the comparable part of Config (the Logger is not comparable).
	type knobs struct {
		HTTPAddr  string
		Delay     time.Duration
		Jitter    time.Duration
		ErrorRate float64
		Seed      uint64
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

		{name: "error rate above 1", args: []string{"--error-rate", "1.5"}, wantErr: "error rate"},
		{name: "error rate negative", args: []string{"--error-rate", "-0.1"}, wantErr: "error rate"},
		{name: "error rate NaN", args: []string{"--error-rate", "NaN"}, wantErr: "error rate"},
		{name: "error rate not a number", args: []string{"--error-rate", "half"}, wantErr: "invalid value"},
		{name: "negative delay", args: []string{"--delay", "-1s"}, wantErr: "delay"},
		{name: "negative jitter", args: []string{"--jitter", "-1ms"}, wantErr: "jitter"},
		{name: "all interfaces refused", args: []string{"--http", "0.0.0.0:8080"}, wantErr: "not a loopback"},
		{name: "IPv6 any refused", args: []string{"--http", "[::]:8080"}, wantErr: "not a loopback"},
		{name: "LAN address refused", args: []string{"--http", "192.168.1.10:8080"}, wantErr: "not a loopback"},
		{name: "hostname refused", args: []string{"--http", "example.com:80"}, wantErr: "not a loopback"},
		{name: "missing port", args: []string{"--http", "127.0.0.1"}, wantErr: "HOST:PORT"},
		{name: "port out of range", args: []string{"--http", "127.0.0.1:70000"}, wantErr: "port"},
		{name: "empty address", args: []string{"--http", ""}, wantErr: "--http"},
		{name: "unknown flag", args: []string{"--tls"}, wantErr: "not defined"},
		{name: "positional argument", args: []string{"extra"}, wantErr: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			got := knobs{cfg.HTTPAddr, cfg.Delay, cfg.Jitter, cfg.ErrorRate, cfg.Seed}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseFlagsHelp(t *testing.T) {
	var stderr strings.Builder
	_, err := ParseFlags([]string{"-h"}, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"loadgate serve", "-http", "-error-rate", "-seed"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage does not mention %q:\n%s", want, stderr.String())
		}
	}
}
