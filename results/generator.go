package results

import (
	"fmt"
	"time"
)

// Generator is how loadgate itself fared during a phase. A saturated
// generator sends late or too little, and its figures would blame the
// server for the load tester's own limits, so reports mark such a run
// invalid instead of slow (SPEC §6).
type Generator struct {
	// CPU is loadgate's CPU use (user + system) as a fraction of the cores
	// it may use: 1.0 means every core was busy all phase.
	CPU float64 `json:"cpu"`
	// LoopCPU is, for a phase on event loops, the busiest loop's CPU use
	// as a fraction of its one thread: a loop sends from that thread
	// alone, so at 1.0 it set the pace, however idle the other cores
	// were. 0 on workers.
	LoopCPU float64 `json:"loop_cpu,omitempty"`
	// SchedLag is how late the open-model scheduler woke for arrivals it was
	// free to send: the generator's own lateness, excluding waits caused by
	// max_in_flight back-pressure (that is the server's doing).
	SchedLagP99 time.Duration `json:"sched_lag_p99_ns,omitempty"`
	Saturated   bool          `json:"saturated,omitempty"`
	Reason      string        `json:"reason,omitempty"`
}

// Saturation thresholds: a generator using nearly all its cores, whose
// scheduler runs this late, or that dropped arrivals while busy itself,
// cannot be trusted to have delivered the load.
const (
	saturatedCPU       = 0.90
	busyCPU            = 0.75
	saturatedSchedLag  = 10 * time.Millisecond
	saturatedDropShare = 0.01
)

// Judge fills Saturated and Reason for an open-model phase from the
// measured figures: dropShare is the fraction of due arrivals never sent,
// idleShare the fraction handed to a worker that was already waiting.
//
// Only the open model is judged: it promises a rate, so falling behind it is
// a generator failure unless the server held it back. Dropped arrivals alone
// do not say who was slow; they point at the generator when connections sat
// idle meanwhile (the scheduler could not issue arrivals fast enough) or
// when loadgate's CPU was busy. A closed-model generator at full CPU merely
// slows its workers, which the figures show as lower throughput; its CPU is
// reported so a rule (`generator.cpu < 0.9`) can require headroom. (loadgate
// demo and the tests host the server in the same process, whose CPU counts
// here too, while loopback's kernel work counts nowhere.)
func (g *Generator) Judge(dropShare, idleShare float64) {
	switch {
	case g.SchedLagP99 > saturatedSchedLag:
		g.Saturated = true
		g.Reason = fmt.Sprintf("the scheduler ran %v late (p99): the machine could not send at the requested rate", g.SchedLagP99.Round(time.Millisecond/10))
	case dropShare > saturatedDropShare && idleShare > 0.5:
		g.Saturated = true
		g.Reason = fmt.Sprintf("%.1f%% of arrivals were dropped while connections sat idle: loadgate could not issue requests at the requested rate", 100*dropShare)
	case dropShare > saturatedDropShare && g.busy() >= busyCPU:
		g.Saturated = true
		g.Reason = fmt.Sprintf("%.1f%% of arrivals were dropped while %s: the generator could not keep up with the rate", 100*dropShare, g.busyWords())
	case g.CPU >= saturatedCPU:
		g.Saturated = true
		g.Reason = fmt.Sprintf("loadgate used %.0f%% of its CPU: results may reflect the load generator, not the server", 100*g.CPU)
	case g.LoopCPU >= saturatedCPU:
		g.Saturated = true
		g.Reason = fmt.Sprintf("the event loop was busy %.0f%% of the phase: results may reflect the load generator, not the server", 100*g.LoopCPU)
	}
}

// busy is how busy the generator was: its share of its cores, or its
// busiest event loop's of its thread, whichever is higher.
func (g *Generator) busy() float64 { return max(g.CPU, g.LoopCPU) }

// busyWords says how busy, in words.
func (g *Generator) busyWords() string {
	if g.LoopCPU > g.CPU {
		return fmt.Sprintf("its event loop was busy %.0f%% of the phase", 100*g.LoopCPU)
	}
	return fmt.Sprintf("loadgate used %.0f%% of its CPU", 100*g.CPU)
}

// worst combines the health of several phases or trials: the busiest CPU,
// the latest scheduler, and the first reason for saturation.
func (g *Generator) worst(o Generator) {
	g.CPU = max(g.CPU, o.CPU)
	g.LoopCPU = max(g.LoopCPU, o.LoopCPU)
	g.SchedLagP99 = max(g.SchedLagP99, o.SchedLagP99)
	if o.Saturated && !g.Saturated {
		g.Saturated, g.Reason = true, o.Reason
	}
}
