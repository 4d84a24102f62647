package runner

import (
	"testing"

	"github.com/loadgate/loadgate/results"
)

func TestSetCPUPerRequest(t *testing.T) {
	phase := func(warmup bool, succeeded int64) *results.PhaseResult {
		p := &results.PhaseResult{Warmup: warmup}
		p.Succeeded = succeeded
		return p
	}
	// One core for 1s: 1e6 µs of CPU in each window.
	usage := func(pid int) *results.Usage {
		return &results.Usage{PID: pid, Samples: 2, CPUMean: 100, Window: 1}
	}
	tests := []struct {
		name  string
		cases []*results.CaseResult
		want  []float64 // -1: no figure
	}{
		{"one case, warm-up before the window left out", []*results.CaseResult{
			{ServerName: "app", Server: usage(10), Phases: []*results.PhaseResult{phase(true, 9000), phase(false, 1000)}},
		}, []float64{1000}},
		{"warm-up inside the window counted", []*results.CaseResult{
			{ServerName: "app", Server: usage(10), Phases: []*results.PhaseResult{phase(false, 1000), phase(true, 1000), phase(false, 2000)}},
		}, []float64{250}},
		// The scenario's server served both cases in the one window.
		{"one server shared by the group", []*results.CaseResult{
			{ServerName: "app", Server: usage(10), Phases: []*results.PhaseResult{phase(false, 1000)}},
			{ServerName: "app", Server: usage(10), Phases: []*results.PhaseResult{phase(false, 3000)}},
		}, []float64{250, 250}},
		{"each target its own server", []*results.CaseResult{
			{ServerName: "a", Server: usage(10), Phases: []*results.PhaseResult{phase(false, 1000)}},
			{ServerName: "b", Server: usage(11), Phases: []*results.PhaseResult{phase(false, 4000)}},
		}, []float64{1000, 250}},
		{"none succeeded", []*results.CaseResult{
			{ServerName: "app", Server: usage(10), Phases: []*results.PhaseResult{phase(false, 0)}},
		}, []float64{-1}},
		{"no server", []*results.CaseResult{
			{Phases: []*results.PhaseResult{phase(false, 10)}},
		}, []float64{-1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setCPUPerRequest(tt.cases)
			for i, cr := range tt.cases {
				var got float64 = -1
				if cr.Server != nil && cr.Server.CPUPerRequestUS != nil {
					got = *cr.Server.CPUPerRequestUS
				}
				if got != tt.want[i] {
					t.Errorf("case %d: cpu per request %v µs, want %v", i, got, tt.want[i])
				}
			}
		})
	}
}
