package results

import (
	"strings"
	"testing"
	"time"
)

func TestGeneratorWorst(t *testing.T) {
	g := Generator{CPU: 0.3, LoopCPU: 0.7, SchedLagP99: 2 * time.Millisecond}
	g.worst(Generator{CPU: 0.1, LoopCPU: 0.8, SchedLagP99: 20 * time.Millisecond, Saturated: true, Reason: "first"})
	g.worst(Generator{CPU: 0.5, Saturated: true, Reason: "second"})
	want := Generator{CPU: 0.5, LoopCPU: 0.8, SchedLagP99: 20 * time.Millisecond, Saturated: true, Reason: "first"}
	if g != want {
		t.Errorf("worst = %+v, want %+v", g, want)
	}
}

func TestGeneratorJudge(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		g                    Generator
		dropShare, idleShare float64
		saturated            bool
		reason               string
	}{
		{"kept up", Generator{CPU: 0.2, SchedLagP99: time.Millisecond}, 0, 0.9, false, ""},
		{"scheduler late beyond 10ms", Generator{CPU: 0.2, SchedLagP99: 23600 * time.Microsecond}, 0, 0, true, "the scheduler ran 23.6ms late"},
		{"scheduler exactly 10ms late is still fine", Generator{SchedLagP99: 10 * time.Millisecond}, 0, 0, false, ""},
		{"drops while connections sat idle", Generator{CPU: 0.2}, 0.05, 0.8, true, "5.0% of arrivals were dropped while connections sat idle"},
		{"drops behind busy connections: the server's doing", Generator{CPU: 0.2}, 0.5, 0.1, false, ""},
		{"drops while loadgate was busy", Generator{CPU: 0.8}, 0.05, 0.1, true, "used 80% of its CPU"},
		{"1% drops are tolerated", Generator{CPU: 0.8}, 0.01, 0.9, false, ""},
		{"CPU nearly saturated", Generator{CPU: 0.95}, 0, 0, true, "loadgate used 95% of its CPU"},
		{"busy CPU without drops is fine", Generator{CPU: 0.85}, 0, 0, false, ""},
		{"the event loop's thread nearly saturated, the other core idle", Generator{CPU: 0.5, LoopCPU: 0.96}, 0, 0, true, "the event loop was busy 96% of the phase"},
		{"a busy event loop is fine", Generator{CPU: 0.45, LoopCPU: 0.85}, 0, 0, false, ""},
		{"drops while the event loop was busy", Generator{CPU: 0.4, LoopCPU: 0.8}, 0.05, 0.1, true, "while its event loop was busy 80% of the phase"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			g.Judge(tc.dropShare, tc.idleShare)
			if g.Saturated != tc.saturated || (tc.reason == "") != (g.Reason == "") || !strings.Contains(g.Reason, tc.reason) {
				t.Errorf("judge = saturated %v, reason %q; want %v, %q", g.Saturated, g.Reason, tc.saturated, tc.reason)
			}
		})
	}
}
