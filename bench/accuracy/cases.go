package main

import (
	"fmt"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// benchCase is one server behaviour, one phase and what loadgate must
// measure of it.
type benchCase struct {
	name   string
	server demoserver.Config
	phase  scenarios.Phase
	checks []check
	// judgesGenerator: the case checks the generator's own health, so a
	// saturated generator on a quiet machine fails instead of re-measuring.
	judgesGenerator bool
}

type check struct {
	name, expected, bound string
	measure               func(p *results.PhaseResult) (measured string, ok bool)
}

const ms = time.Millisecond

// cases are the accuracy figures; the bounds are those go test used to
// assert, measured here where a busy machine can be recognised.
func cases() []benchCase {
	return []benchCase{
		{
			// Latency ends at the last byte, so never below the delay; the
			// generator adds little.
			name: "20ms delay, closed, 4 workers", server: demoserver.Config{Delay: 20 * ms},
			phase:  scenarios.Phase{Name: "closed", Concurrency: 4, Duration: 2 * time.Second},
			checks: []check{quantileWithin("p50", 50, "20ms", 20*ms, 23*ms)},
		},
		{
			// Timed from the schedule, the open model's figure also carries
			// the scheduler's wake-up lag (about 1 ms on an idle machine).
			name: "20ms delay, open 100/s", server: demoserver.Config{Delay: 20 * ms},
			phase:  scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 100, To: 100}, MaxInFlight: 50, Duration: 2 * time.Second},
			checks: []check{quantileWithin("p50", 50, "20ms", 20*ms, 25*ms)},
		},
		{
			// Coordinated omission: the server freezes 300 ms of every
			// second. Arrivals queued behind the stall are timed from their
			// schedule: 30% of them fall in a stall, spread over 0–300 ms.
			name: "stall 300ms/s, open 200/s", server: demoserver.Config{StallEvery: time.Second, StallFor: 300 * ms},
			phase: scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 200, To: 200}, MaxInFlight: 8, Duration: 3 * time.Second},
			checks: []check{
				quantileAtLeast("p99", 99, "≈300ms (the stall)", 200*ms),
				quantileAtLeast("p90", 90, "≈200ms", 100*ms),
				notSaturated("the stall is the server's, not the generator's"),
			},
			judgesGenerator: true,
		},
		{
			// The naive measurement of the same server: workers wait the
			// stall out, and only the requests on the wire see it.
			name: "stall 300ms/s, closed 2 workers", server: demoserver.Config{StallEvery: time.Second, StallFor: 300 * ms},
			phase:  scenarios.Phase{Name: "closed", Concurrency: 2, Duration: 3 * time.Second},
			checks: []check{quantileBelow("p99", 99, "hides the stall", 200*ms)},
		},
		{
			name: "achieved rate, open 2000/s", server: demoserver.Config{},
			phase:  scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 2000, To: 2000}, MaxInFlight: 100, Duration: 5 * time.Second},
			checks: []check{achievedRate(2000, 0.02)},
		},
		{
			name: "kept-up generator, open 50/s", server: demoserver.Config{},
			phase: scenarios.Phase{Name: "open", Rate: scenarios.Rate{From: 50, To: 50}, MaxInFlight: 8, Duration: time.Second},
			checks: []check{
				notSaturated("50 req/s is far below the machine's limit"),
				{name: "generator cpu", expected: "a small share", bound: "in (0, 0.9)",
					measure: func(p *results.PhaseResult) (string, bool) {
						return fmt.Sprintf("%.3f", p.Generator.CPU), p.Generator.CPU > 0 && p.Generator.CPU < 0.9
					}},
			},
			judgesGenerator: true,
		},
	}
}

var failedRequests = check{name: "failed requests", expected: "0", bound: "= 0",
	measure: func(p *results.PhaseResult) (string, bool) {
		return fmt.Sprintf("%d of %d (%+v)", p.Failed, p.Requests, p.Errors), p.Failed == 0
	}}

func quantileWithin(name string, q float64, expected string, lo, hi time.Duration) check {
	return check{name: name, expected: expected, bound: fmt.Sprintf("[%v, %v]", lo, hi),
		measure: func(p *results.PhaseResult) (string, bool) {
			v := p.Latency.Quantile(q)
			return fmtDur(v), v >= lo && v <= hi
		}}
}

func quantileAtLeast(name string, q float64, expected string, lo time.Duration) check {
	return check{name: name, expected: expected, bound: "≥ " + lo.String(),
		measure: func(p *results.PhaseResult) (string, bool) {
			v := p.Latency.Quantile(q)
			return fmtDur(v), v >= lo
		}}
}

func quantileBelow(name string, q float64, expected string, hi time.Duration) check {
	return check{name: name, expected: expected, bound: "< " + hi.String(),
		measure: func(p *results.PhaseResult) (string, bool) {
			v := p.Latency.Quantile(q)
			return fmtDur(v), v < hi
		}}
}

func achievedRate(rate, tolerance float64) check {
	return check{name: "achieved rate", expected: fmt.Sprintf("%.0f/s", rate),
		bound: fmt.Sprintf("± %.0f%%", 100*tolerance),
		measure: func(p *results.PhaseResult) (string, bool) {
			got := float64(p.Succeeded) / p.Elapsed.Seconds() // throughput counts successes
			return fmt.Sprintf("%.1f/s (%d in %v, %d dropped)", got, p.Requests, p.Elapsed.Round(ms), p.Dropped),
				got >= rate*(1-tolerance) && got <= rate*(1+tolerance)
		}}
}

func notSaturated(why string) check {
	return check{name: "generator", expected: "healthy: " + why, bound: "not saturated",
		measure: func(p *results.PhaseResult) (string, bool) {
			if p.Generator.Saturated {
				return "saturated: " + p.Generator.Reason, false
			}
			return fmt.Sprintf("healthy (sched lag p99 %v, cpu %.2f)", fmtDur(p.Generator.SchedLagP99), p.Generator.CPU), true
		}}
}

func fmtDur(d time.Duration) string { return d.Round(10 * time.Microsecond).String() }
