package results

import (
	"math"
	"testing"
)

func TestCPUPerRequest(t *testing.T) {
	tests := []struct {
		name       string
		cpu, secs  float64
		succeeded  int64
		want       float64
		wantFigure bool
	}{
		// One core busy for 10s is 10 CPU-seconds; over 100000 requests, 100µs each.
		{"one core, 10s, 100k requests", 100, 10, 100_000, 100, true},
		// Half a core for 2s: 1 CPU-second over 4000 requests.
		{"half a core, 2s, 4000 requests", 50, 2, 4000, 250, true},
		// Two and a half cores for 4s: 10 CPU-seconds over a million.
		{"several cores", 250, 4, 1_000_000, 10, true},
		// An idle server that answered is a measurement of 0, not a missing one.
		{"idle server", 0, 5, 100, 0, true},
		{"no request succeeded", 80, 10, 0, 0, false},
		{"no window", 80, 0, 100, 0, false},
		{"negative mean", -1, 10, 100, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CPUPerRequest(tt.cpu, tt.secs, tt.succeeded)
			if ok != tt.wantFigure || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("CPUPerRequest(%v, %v, %d) = %v, %v; want %v, %v", tt.cpu, tt.secs, tt.succeeded, got, ok, tt.want, tt.wantFigure)
			}
		})
	}
}

func TestSetCPUPerRequest(t *testing.T) {
	tests := []struct {
		name      string
		u         Usage
		succeeded int64
		want      *float64
	}{
		{"sampled process", Usage{PID: 7, Samples: 3, CPUMean: 100, Window: 2}, 1000, ptr(2000.0)},
		// One sample has no CPU: no figure, never 0.
		{"one sample", Usage{PID: 7, Samples: 1, Window: 0}, 1000, nil},
		{"nothing sampled", Usage{PID: 7, Reason: "process 7 is gone"}, 1000, nil},
		// Its CPU covers only part of the requests counted.
		{"exited", Usage{PID: 7, Samples: 3, CPUMean: 100, Window: 2, Exited: true}, 1000, nil},
		{"prometheus", Usage{Prometheus: "http://127.0.0.1:9090", Samples: 4, CPUMean: 20, Window: 5}, 500, ptr(2000.0)},
		{"host only", Usage{Samples: 3, CPUMean: 100, Window: 2}, 1000, nil},
		{"stale figure cleared", Usage{PID: 7, Samples: 3, CPUMean: 100, Window: 2, CPUPerRequestUS: ptr(1.0)}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := tt.u
			u.SetCPUPerRequest(tt.succeeded)
			switch {
			case (u.CPUPerRequestUS == nil) != (tt.want == nil):
				t.Fatalf("CPUPerRequestUS = %v, want %v", u.CPUPerRequestUS, tt.want)
			case tt.want != nil && math.Abs(*u.CPUPerRequestUS-*tt.want) > 1e-9:
				t.Errorf("CPUPerRequestUS = %v, want %v", *u.CPUPerRequestUS, *tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
