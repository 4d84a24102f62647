package scenarios

// PhaseKey names one phase of one case.
type PhaseKey struct{ Case, Phase string }

// SegmentLoad is how much of a scenario's measured load one segment sends, in
// expected iterations (thousandths, as draws counts them): its requests
// when a phase counts them, else its arrivals (open model) or its
// worker-seconds (closed model), times trials. Warm-ups count nothing:
// they are not measured. Only the proportions between segments mean
// anything; they come from the dealt workers, requests and rates, so every
// machine computes the same shares from the scenario alone.
type SegmentLoad struct {
	Total  int64
	Phases map[PhaseKey]int64
}

// SegmentLoads returns the SegmentLoad of each of the count segments of sc, in
// segment order: what a missing or incomplete part would have sent.
func SegmentLoads(sc *Scenario, count int) []SegmentLoad {
	out := make([]SegmentLoad, count)
	for j := 1; j <= count; j++ {
		l := SegmentLoad{Phases: map[PhaseKey]int64{}}
		cases, _ := splitCases(sc, Segment{Index: j, Count: count})
		for _, c := range cases {
			for _, ph := range c.Phases {
				if ph.Warmup {
					continue
				}
				d := phaseDraws(ph, false, true)
				l.Phases[PhaseKey{c.ID, ph.Name}] += d
				l.Total += d
			}
		}
		out[j-1] = l
	}
	return out
}
