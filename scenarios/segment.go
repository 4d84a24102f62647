package scenarios

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Segment names one share of a distributed run: Index of Count, 1-based as
// users write it (`--segment 2/4`).
type Segment struct {
	Index, Count int
}

// Whole is the undivided run.
var Whole = Segment{Index: 1, Count: 1}

// ParseSegment reads "I/N".
func ParseSegment(s string) (Segment, error) {
	var seg Segment
	var rest string
	if n, _ := fmt.Sscanf(s, "%d/%d%s", &seg.Index, &seg.Count, &rest); n != 2 {
		return Segment{}, fmt.Errorf("segment %q: want I/N, e.g. 2/4", s)
	}
	if seg.Count < 1 || seg.Index < 1 || seg.Index > seg.Count {
		return Segment{}, fmt.Errorf("segment %q: want 1 ≤ I ≤ N", s)
	}
	return seg, nil
}

func (s Segment) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// share is segment s's part of total when total is split as evenly as
// possible, remainders going to the first segments: 10 over 4 is 3, 3, 2, 2.
// It is apportion with every segment weighing the same.
func (s Segment) share(total int64) int64 {
	return apportion(total, make([]int64, s.Count))[s.Index-1]
}

// splitPhase returns segment s's part of ph: concurrency (both ends of a
// ramp), request count, arrival rate and max_in_flight are divided; the
// duration, the matrix and the targets stay the same in every segment.
// why says, when the segment's share of this phase is zero (more segments
// than workers or requests), why it has nothing to send. A share is zero
// exactly when the total is smaller than the segment's index, since
// remainders go to the first segments.
func splitPhase(ph Phase, s Segment) (part Phase, why string) {
	if s.Count <= 1 {
		return ph, ""
	}
	part = ph
	if ph.Search != nil {
		// Each segment searches for its share of the capacity; merge adds
		// the parts up only when every one found its own.
		sr := *ph.Search
		sr.From, sr.Max = sr.From/float64(s.Count), sr.Max/float64(s.Count)
		sr.MaxInFlight = int(max(1, s.share(int64(sr.MaxInFlight))))
		part.Search = &sr
		return part, ""
	}
	if ph.Requests > 0 {
		reqSeg := s
		if !ph.Rate.Open() && ph.Concurrency < s.Count {
			// Only the segments that get a worker can send: the request
			// count is split among them, so none is stranded without one.
			reqSeg.Count = ph.Concurrency
		}
		if reqSeg.Index <= reqSeg.Count {
			part.Requests = reqSeg.share(ph.Requests)
		} else {
			part.Requests = 0 // no worker here: the concurrency says why
		}
		if part.Requests == 0 && ph.Requests < int64(s.Index) {
			why = fmt.Sprintf("phase %q sends %d requests in all, one each for the first %d segments", ph.Name, ph.Requests, ph.Requests)
		}
	}
	if ph.Rate.Open() {
		// Rates are real numbers: every segment gets an equal share.
		part.Rate = Rate{From: ph.Rate.From / float64(s.Count), To: ph.Rate.To / float64(s.Count)}
		part.MaxInFlight = int(max(1, s.share(int64(ph.MaxInFlight))))
		return part, why
	}
	part.Concurrency = int(s.share(int64(ph.Concurrency)))
	if ph.ConcurrencyFrom > 0 {
		part.ConcurrencyFrom = int(s.share(int64(ph.ConcurrencyFrom)))
		if part.ConcurrencyFrom == 0 && part.Concurrency > 0 {
			// This segment's workers all join during the ramp.
			part.ConcurrencyFrom = 1
		}
		if part.ConcurrencyFrom >= part.Concurrency {
			part.ConcurrencyFrom = 0 // nothing left to ramp in this share
		}
	}
	if part.Concurrency == 0 && why == "" {
		why = fmt.Sprintf("phase %q has concurrency %d, one worker each for the first %d segments", ph.Name, ph.Concurrency, ph.Concurrency)
	}
	return part, why
}

// Dropped is a case that a segment has no share of: every one of its
// measured phases has a zero share, and running its warm-up alone would
// measure nothing.
type Dropped struct {
	Case int // index in the scenario's Cases
	// Why names the case's first measured phase and why its share is
	// zero: `phase "load" has concurrency 2, one worker each for the
	// first 2 segments`.
	Why string
}

// Split returns a copy of sc as segment s runs it: every phase is its part
// (splitPhase), a phase with a zero share is left out, and so is a case
// left without a measured phase, which dropped lists with the reason. No
// case is left at all when the segment has nothing to send. Every unique
// data source keeps only its slice of the rows, dealt among the segments by
// how many rows each is expected to draw. sc is not modified.
func Split(sc *Scenario, s Segment) (part *Scenario, dropped []Dropped) {
	if s.Count <= 1 {
		return sc, nil
	}
	cp := *sc
	cp.Cases, dropped = splitCases(sc, s)
	cp.Data = segmentData(sc, s)
	return &cp, dropped
}

// splitCases is the load of sc that segment s runs, the part of Split
// every other segment can compute too.
func splitCases(sc *Scenario, s Segment) (cases []Case, dropped []Dropped) {
	for i, c := range sc.Cases {
		c.Phases = nil
		why := ""
		for _, ph := range sc.Cases[i].Phases {
			p, zero := splitPhase(ph, s)
			switch {
			case zero == "":
				c.Phases = append(c.Phases, p)
			case why == "" && !p.Warmup:
				why = zero
			}
		}
		if !slices.ContainsFunc(c.Phases, func(p Phase) bool { return !p.Warmup }) {
			if why == "" {
				why = "its measured phases have no share for it"
			}
			dropped = append(dropped, Dropped{Case: i, Why: why})
			continue
		}
		cases = append(cases, c)
	}
	return cases, dropped
}

// apportion deals total units among parts in proportion to their weights
// (the largest-remainder method): every part gets the whole units of its
// quota total×w/W, and the units left over go one each to the parts with
// the largest fractions, the first parts on a tie. The shares add up to
// total, a part of weight 0 gets nothing, and equal weights deal total
// as evenly as possible with the remainders to the first parts, as
// workers are dealt. When no part has weight, all weigh the same.
// Integer arithmetic makes every machine deal alike.
func apportion(total int64, weights []int64) []int64 {
	out := make([]int64, len(weights))
	var sum uint64
	for _, w := range weights {
		sum += uint64(max(0, w))
	}
	if total <= 0 || len(weights) == 0 {
		return out
	}
	if sum == 0 {
		weights = make([]int64, len(weights))
		for i := range weights {
			weights[i] = 1
		}
		sum = uint64(len(weights))
	}
	frac := make([]uint64, len(weights))
	left := total
	for i, w := range weights {
		hi, lo := bits.Mul64(uint64(total), uint64(max(0, w)))
		q, r := bits.Div64(hi, lo, sum) // hi < sum, as w ≤ sum and total < 2⁶³
		out[i], frac[i] = int64(q), r
		left -= int64(q)
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	// Every fraction is a remainder of the same sum: comparing them
	// compares the fractions. A stable sort keeps the first parts first.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(frac[b], frac[a]) })
	for _, i := range order[:left] {
		out[i]++
	}
	return out
}

// rowRange is a range [Lo, Hi) of a data source's rows.
type rowRange struct{ Lo, Hi int }

// segmentRows returns, for every data source of sc, the rows segment s
// hands out. A unique source is dealt among the N segments in proportion
// to how many rows each is expected to draw from it (see draws), with
// apportion, the computation that deals the workers: the ranges are
// disjoint, cover every row, and a segment that sends none of the load
// that draws from the source gets none, so the N parts can use exactly
// the rows one machine would. Other sources are whole in every segment.
func segmentRows(sc *Scenario, s Segment) []rowRange {
	out := make([]rowRange, len(sc.Data))
	weights := make([][]int64, len(sc.Data)) // by source, by segment
	for i, src := range sc.Data {
		out[i] = rowRange{0, len(src.Rows)}
		if src.Mode == DataUnique && s.Count > 1 {
			weights[i] = make([]int64, s.Count)
		}
	}
	if s.Count <= 1 || !slices.ContainsFunc(weights, func(w []int64) bool { return w != nil }) {
		return out
	}
	for j := 1; j <= s.Count; j++ {
		cases, _ := splitCases(sc, Segment{Index: j, Count: s.Count})
		for i := range weights {
			if weights[i] != nil {
				weights[i][j-1] = draws(cases, i)
			}
		}
	}
	for i, w := range weights {
		if w == nil {
			continue
		}
		counts := apportion(int64(len(sc.Data[i].Rows)), w)
		var lo int64
		for _, n := range counts[:s.Index-1] {
			lo += n
		}
		out[i] = rowRange{int(lo), int(lo + counts[s.Index-1])}
	}
	return out
}

// segmentData returns the data sources of sc as segment s hands them out.
func segmentData(sc *Scenario, s Segment) []*DataSource {
	if len(sc.Data) == 0 {
		return sc.Data
	}
	rows := segmentRows(sc, s)
	out := make([]*DataSource, len(sc.Data))
	for i, src := range sc.Data {
		out[i] = src
		if r := rows[i]; r != (rowRange{0, len(src.Rows)}) {
			cp := *src
			cp.Rows = src.Rows[r.Lo:r.Hi:r.Hi]
			out[i] = &cp
		}
	}
	return out
}

// draws is how many rows the phases of cases are expected to draw from
// data source src, in thousandths of a row: a phase draws one row per
// virtual user for setup, and one per iteration for the steps. The
// iterations of a phase are its requests when it counts them, else its
// arrivals in the open model (mean rate × duration) and its worker-seconds
// in the closed model (workers at the peak of a ramp × duration), trials
// times. Only the proportions between segments matter; they come from
// the dealt workers, requests and rates, so a segment with none of the
// load draws nothing.
func draws(cases []Case, src int) int64 {
	var sum int64
	for _, c := range cases {
		h := c.Target.HTTP
		if h == nil || h.Flow == nil {
			continue
		}
		setup, steps := slices.Contains(h.Flow.SetupData, src), slices.Contains(h.Flow.StepData, src)
		for _, ph := range c.Phases {
			sum += phaseDraws(ph, setup, steps)
		}
	}
	return sum
}

func phaseDraws(ph Phase, setup, steps bool) int64 {
	ms := ph.Duration.Milliseconds()
	rate := (ph.Rate.From + ph.Rate.To) / 2
	users := int64(ph.Concurrency)
	if ph.Search != nil {
		ms = ph.Search.Step.Milliseconds()
		rate = (ph.Search.From + ph.Search.Max) / 2
	}
	if ph.Rate.Open() || ph.Search != nil {
		users = int64(ph.MaxInFlight)
		if ph.Search != nil {
			users = int64(ph.Search.MaxInFlight)
		}
	}
	var d int64
	if setup {
		d += users * 1000
	}
	switch {
	case !steps:
	case ph.Requests > 0:
		d += ph.Requests * 1000
	case ph.Rate.Open() || ph.Search != nil:
		d += int64(math.Round(rate * float64(ms)))
	default:
		d += users * ms
	}
	return d * int64(max(1, ph.Trials))
}
