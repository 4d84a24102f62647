package runner

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// TestLoopCores: the closed model's loops leave half the cores to the
// server on the same machine, and there is always one.
func TestLoopCores(t *testing.T) {
	for _, tc := range []struct{ procs, want int }{
		{1, 1}, {2, 1}, {3, 1}, {4, 2}, {5, 2}, {16, 8},
	} {
		if got := loopCores(tc.procs); got != tc.want {
			t.Errorf("loopCores(%d) = %d, want %d", tc.procs, got, tc.want)
		}
	}
}

func TestThreadShare(t *testing.T) {
	for _, tc := range []struct {
		cpu, wall time.Duration
		want      float64
	}{
		{time.Second, 2 * time.Second, 0.5},
		{0, time.Second, 0},
		{time.Second, 0, 0},                       // no wall time: nothing to judge
		{1010 * time.Millisecond, time.Second, 1}, // the thread cannot use more than itself
	} {
		if got := threadShare(tc.cpu, tc.wall); got != tc.want {
			t.Errorf("threadShare(%v, %v) = %v, want %v", tc.cpu, tc.wall, got, tc.want)
		}
	}
	var v atomic.Int64
	for _, x := range []int64{3, 7, 5} {
		raiseTo(&v, x)
	}
	if v.Load() != 7 {
		t.Errorf("raiseTo over 3, 7, 5 gave %d, want 7", v.Load())
	}
}

// TestLoopCPU: a phase on event loops reports its busiest loop's use of
// its thread; one on workers has no loop to report.
func TestLoopCPU(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hello))
	defer srv.Close()
	for _, onWorkers := range []bool{false, true} {
		sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
			scenarios.Phase{Name: "m", Concurrency: 4, Requests: 2000, Duration: 30 * time.Second})
		res, err := Run(t.Context(), sc, Config{Workers: onWorkers})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Cases[0].Phases[0]
		if p.Succeeded != 2000 {
			t.Fatalf("workers %v: %d succeeded, want 2000 (errors %v)", onWorkers, p.Succeeded, p.Errors)
		}
		if got := p.Generator.LoopCPU; onWorkers && got != 0 || !onWorkers && (got <= 0 || got > 1) {
			t.Errorf("workers %v: generator.loop_cpu %v, want 0 on workers, in (0, 1] on loops", onWorkers, got)
		}
	}
}
