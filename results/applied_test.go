package results

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

func TestInvalidity(t *testing.T) {
	open := func(rate float64, requests, dropped int64, g Generator) *PhaseResult {
		return &PhaseResult{Name: "m", Rate: &scenarios.Rate{From: rate, To: rate},
			Counters: Counters{Requests: requests}, Dropped: dropped, Generator: g}
	}
	late := Generator{CPU: 0.17, SchedLagP99: 116 * time.Millisecond, Saturated: true,
		Reason: "the scheduler ran 116ms late (p99): the machine could not send at the requested rate"}
	quiet := Generator{CPU: 0.05, SchedLagP99: 2 * time.Millisecond}
	tests := []struct {
		name  string
		phase *PhaseResult
		want  string
	}{
		{"closed model: no rate promised, nothing to fall short of",
			&PhaseResult{Name: "m", Concurrency: 4, Counters: Counters{Requests: 10}, Generator: Generator{CPU: 0.99}}, ""},
		{"open model, every arrival sent", open(1000, 2000, 0, quiet), ""},
		{"2,000,000/s asked, 28,530 of 3,999,049 sent by a late scheduler: the generator's",
			open(2e6, 28530, 3999049-28530, late),
			"the generator sent 0.7 % of the requested 2,000,000/s (28,530 of 3,999,049 due arrivals); the scheduler ran 116ms late (p99): the machine could not send at the requested rate"},
		{"frozen server: half the arrivals held back by max_in_flight, generator idle and on time: the server's finding",
			open(200, 300, 300, quiet), ""},
		{"short while loadgate's CPU was busy, though the engine did not call it saturated",
			open(1000, 800, 200, Generator{CPU: 0.8}),
			"the generator sent 80 % of the requested 1,000/s (800 of 1,000 due arrivals); loadgate used 80% of its CPU"},
		{"short with the scheduler late for arrivals it was free to send",
			open(1000, 800, 200, Generator{CPU: 0.3, SchedLagP99: 30 * time.Millisecond}),
			"the generator sent 80 % of the requested 1,000/s (800 of 1,000 due arrivals); its scheduler ran 30ms late (p99)"},
		{"saturated by the engine's verdict, yet every arrival left (a busy 2-core machine): judged",
			open(200, 600, 0, Generator{CPU: 0.2, SchedLagP99: 18 * time.Millisecond, Saturated: true, Reason: "late"}), ""},
		{"within the tolerance: 96 % sent by a late scheduler", open(1000, 960, 40, late), ""},
		{"a server stalling at the end: 33 arrivals left behind 8 requests it never answered (a busy machine, 200/s)",
			func() *PhaseResult {
				p := open(200, 567, 33, Generator{CPU: 0.02, SchedLagP99: 4700 * time.Microsecond, Saturated: true, Reason: "idle"})
				p.Errors.Unfinished = 8
				return p
			}(), ""},
		{"a flood: 1,000 requests unanswered by the end too, but behind a scheduler 365 ms late: the generator's",
			func() *PhaseResult {
				p := open(2e6, 10658, 994671, Generator{CPU: 0.17, SchedLagP99: 365 * time.Millisecond, Saturated: true, Reason: "late"})
				p.Errors.Unfinished = 1000
				return p
			}(), "the generator sent 1.1 % of the requested 2,000,000/s (10,658 of 1,005,329 due arrivals); late"},
		{"just outside it: 94 % of 3 s sent", open(1000, 2820, 180, Generator{CPU: 0.9}),
			"the generator sent 94 % of the requested 1,000/s (2,820 of 3,000 due arrivals); loadgate used 90% of its CPU"},
		{"a ramp is named as one",
			&PhaseResult{Name: "m", Rate: &scenarios.Rate{From: 100, To: 5000}, Counters: Counters{Requests: 10}, Dropped: 990, Generator: late},
			"the generator sent 1.0 % of the requested 100→5,000/s (10 of 1,000 due arrivals); " + late.Reason},
		{"nothing due (a phase that ended at once)", open(1000, 0, 0, late), ""},
		{"a 300 ms phase at 200/s ending 7 arrivals behind a 35 ms lag: the end of the schedule, within the slack",
			open(200, 53, 7, late), ""},
		{"21 arrivals owed at 200/s: beyond 100 ms of the schedule", open(200, 79, 21, late),
			"the generator sent 79 % of the requested 200/s (79 of 100 due arrivals); " + late.Reason},
		{"a capacity search the generator stopped",
			&PhaseResult{Name: "m", Search: &SearchResult{LimitedByGenerator: true, Capacity: 19200.4}},
			"the generator limited the capacity search: capacity ≥ 19,200/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.phase.Invalidity(); got != tt.want {
				t.Errorf("Invalidity() =\n  %q\nwant\n  %q", got, tt.want)
			}
			whole := Invalidity([]*PhaseResult{{Name: "w", Concurrency: 1}, tt.phase})
			if (whole != "") != (tt.want != "") || tt.want != "" && whole != "phase m: "+tt.want {
				t.Errorf("Invalidity(phases) = %q", whole)
			}
		})
	}
}
