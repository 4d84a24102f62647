package scenarios

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseSegment(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Segment
		ok   bool
	}{
		{"1/1", Segment{1, 1}, true},
		{"3/4", Segment{3, 4}, true},
		{"0/4", Segment{}, false},  // 1-based
		{"5/4", Segment{}, false},  // beyond N
		{"2", Segment{}, false},    // no N
		{"2/4x", Segment{}, false}, // trailing junk
		{"-1/4", Segment{}, false}, // negative
	} {
		got, err := ParseSegment(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSegment(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestSplitPhase(t *testing.T) {
	closed := Phase{Name: "m", Concurrency: 10, Requests: 1001, Duration: time.Minute}
	open := Phase{Name: "o", Rate: Rate{From: 100, To: 300}, MaxInFlight: 7, Duration: time.Minute}
	ramp := Phase{Name: "r", ConcurrencyFrom: 2, Concurrency: 9, Duration: time.Minute}
	for _, tc := range []struct {
		name  string
		phase Phase
		seg   Segment
		want  Phase
		ok    bool
	}{
		{"whole run is untouched", closed, Whole, closed, true},
		// 10 workers over 4: 3, 3, 2, 2; 1001 requests: 251, 250, 250, 250.
		{"first segment takes the remainders", closed, Segment{1, 4}, Phase{Name: "m", Concurrency: 3, Requests: 251, Duration: time.Minute}, true},
		{"last segment", closed, Segment{4, 4}, Phase{Name: "m", Concurrency: 2, Requests: 250, Duration: time.Minute}, true},
		// 10 workers over 12 segments: segments 11 and 12 get none and say so;
		// the 1001 requests go to the 10 segments with a worker (101, then 100).
		{"more segments than workers: share 1", closed, Segment{10, 12}, Phase{Name: "m", Concurrency: 1, Requests: 100, Duration: time.Minute}, true},
		{"more segments than workers: share 0", closed, Segment{11, 12}, Phase{Name: "m", Concurrency: 0, Requests: 0, Duration: time.Minute}, false},
		// Rates divide exactly; max_in_flight 7 over 2 is 4 and 3.
		{"open model rates divide", open, Segment{2, 2}, Phase{Name: "o", Rate: Rate{From: 50, To: 150}, MaxInFlight: 3, Duration: time.Minute}, true},
		// Ramp 2→9 over 3: from 1,1,0→(joins during the ramp: 1); to 3,3,3.
		{"concurrency ramp splits both ends", ramp, Segment{3, 3}, Phase{Name: "r", ConcurrencyFrom: 1, Concurrency: 3, Duration: time.Minute}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := splitPhaseOK(tc.phase, tc.seg)
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Shares always add up to the whole, for every split.
func TestSegmentSharesAddUp(t *testing.T) {
	for total := int64(0); total < 40; total++ {
		for n := 1; n <= 9; n++ {
			var sum int64
			prev := int64(1 << 62)
			for i := 1; i <= n; i++ {
				s := Segment{i, n}.share(total)
				if s > prev {
					t.Fatalf("%d over %d: segment %d gets %d, more than an earlier one", total, n, i, s)
				}
				prev = s
				sum += s
			}
			if sum != total {
				t.Fatalf("%d over %d adds up to %d", total, n, sum)
			}
		}
	}
}

func TestSplitEmptySegment(t *testing.T) {
	sc := &Scenario{Cases: []Case{{ID: "a", Phases: []Phase{
		{Name: "warm", Warmup: true, Concurrency: 3, Requests: 30},
		{Name: "m", Concurrency: 2, Duration: time.Second},
	}}}}
	// Segment 3/3 has a warm-up worker but no measured one: the case is
	// dropped, which leaves nothing to send.
	want := []Dropped{{Case: 0, Why: `phase "m" has concurrency 2, one worker each for the first 2 segments`}}
	if part, dropped := Split(sc, Segment{3, 3}); len(part.Cases) != 0 || !slices.Equal(dropped, want) {
		t.Errorf("segment 3/3 of 2 workers: cases %+v, dropped %v; want none, %v", part.Cases, dropped, want)
	}
	if part, dropped := Split(sc, Segment{2, 3}); len(dropped) != 0 || len(part.Cases) != 1 || len(part.Cases[0].Phases) != 2 {
		t.Errorf("segment 2/3 should keep both phases, got %+v, dropped %v", part.Cases, dropped)
	}
	if len(sc.Cases[0].Phases) != 2 || sc.Cases[0].Phases[1].Concurrency != 2 {
		t.Error("Split modified its input")
	}
}

// No request is stranded on a segment without a worker: every split sends
// the whole request count.
func TestSplitKeepsEveryRequest(t *testing.T) {
	for conc := 1; conc <= 6; conc++ {
		for n := 1; n <= 9; n++ {
			ph := Phase{Name: "m", Concurrency: conc, Requests: 10}
			var sent int64
			for i := 1; i <= n; i++ {
				part, ok := splitPhaseOK(ph, Segment{i, n})
				if ok && part.Concurrency > 0 {
					sent += part.Requests
				} else if part.Requests > 0 {
					t.Fatalf("c=%d n=%d: segment %d has %d requests and no worker", conc, n, i, part.Requests)
				}
			}
			if sent != 10 {
				t.Errorf("c=%d split %d ways sends %d of 10 requests", conc, n, sent)
			}
		}
	}
}

func TestApportion(t *testing.T) {
	const big = int64(3_600_000_000_000) // 1000 workers × 1 h in ms
	for _, tc := range []struct {
		name    string
		total   int64
		weights []int64
		want    []int64
	}{
		{"equal weights deal like workers, remainders first", 10, []int64{1, 1, 1, 1}, []int64{3, 3, 2, 2}},
		{"no weight at all counts as equal weights", 10, []int64{0, 0, 0, 0}, []int64{3, 3, 2, 2}},
		{"a part of weight 0 gets nothing", 6, []int64{1, 1, 0}, []int64{3, 3, 0}},
		{"the odd unit goes to the first of a tie", 5, []int64{1, 1, 0}, []int64{3, 2, 0}},
		{"proportional to the weights", 10, []int64{2, 2, 1}, []int64{4, 4, 2}},
		{"the largest fraction wins the left-over unit", 10, []int64{1, 3}, []int64{3, 7}}, // 2.5, 7.5: tie, first
		{"fraction beats position", 10, []int64{1, 2}, []int64{3, 7}},                      // 3.33, 6.67
		{"fewer units than parts", 2, []int64{1, 1, 1}, []int64{1, 1, 0}},
		{"nothing to deal", 0, []int64{1, 2}, []int64{0, 0}},
		{"no parts", 4, nil, []int64{}},
		{"negative weight is none", 4, []int64{-3, 1}, []int64{0, 4}},
		{"products past 64 bits", 9_000_000, []int64{big, big, big}, []int64{3_000_000, 3_000_000, 3_000_000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, apportion(tc.total, tc.weights)); diff != "" {
				t.Errorf("apportion(%d, %v) (-want +got):\n%s", tc.total, tc.weights, diff)
			}
		})
	}
}

// Every deal adds up to the whole, gives a weightless part nothing and
// every part its quota rounded down or up.
func TestApportionProperties(t *testing.T) {
	weightSets := [][]int64{{1}, {1, 0}, {0, 1, 0}, {5, 3, 2}, {7, 0, 7, 1}, {1, 1, 1, 1, 1, 1, 1}, {10000, 1, 333}}
	for _, ws := range weightSets {
		var sum int64
		for _, w := range ws {
			sum += w
		}
		for total := int64(0); total < 50; total++ {
			got := apportion(total, ws)
			var dealt int64
			for i, n := range got {
				dealt += n
				lo := total * ws[i] / sum
				if n != lo && n != lo+1 || ws[i] == 0 && n != 0 {
					t.Fatalf("%d by %v: part %d gets %d, quota %d/%d", total, ws, i, n, total*ws[i], sum)
				}
			}
			if dealt != total {
				t.Fatalf("%d by %v deals %d", total, ws, dealt)
			}
		}
	}
}

// rowsScenario is one case of an HTTP flow drawing from a unique source
// of n rows, in setup or in its steps, over the given phases.
func rowsScenario(n int, setup bool, phases ...Phase) *Scenario {
	flow := &Flow{StepData: []int{0}}
	if setup {
		flow = &Flow{SetupData: []int{0}}
	}
	rows := make([][]string, n)
	for i := range rows {
		rows[i] = []string{fmt.Sprint(i)}
	}
	return &Scenario{
		Data:  []*DataSource{{Name: "users", Mode: DataUnique, OnExhausted: ExhaustedStop, Rows: rows}},
		Cases: []Case{{ID: "c", Target: Target{HTTP: &HTTPTarget{Flow: flow}}, Phases: phases}},
	}
}

func TestSegmentRows(t *testing.T) {
	closed := func(c int) Phase { return Phase{Name: "m", Concurrency: c, Duration: 10 * time.Second} }
	open := Phase{Name: "o", Rate: Rate{From: 10, To: 10}, MaxInFlight: 5, Duration: 10 * time.Second}
	warm := Phase{Name: "w", Warmup: true, Concurrency: 1, Duration: 5 * time.Second}
	unused := rowsScenario(7, false, closed(2))
	unused.Cases[0].Target.HTTP.Flow.StepData = nil
	for _, tc := range []struct {
		name string
		sc   *Scenario
		n    int   // segments
		want []int // rows per segment
	}{
		// The issue: 2 workers over 3 parts left a third of the rows to
		// the part without a worker.
		{"concurrency 2 over 3: rows only where the workers are", rowsScenario(6, false, closed(2)), 3, []int{3, 3, 0}},
		{"concurrency 2 over 3, odd rows: remainder first", rowsScenario(7, false, closed(2)), 3, []int{4, 3, 0}},
		{"concurrency 5 over 3 follows the workers 2, 2, 1", rowsScenario(10, false, closed(5)), 3, []int{4, 4, 2}},
		{"rate 10 over 3: the rate is shared equally", rowsScenario(6, false, open), 3, []int{2, 2, 2}},
		{"rate 10 over 3, 10 rows", rowsScenario(10, false, open), 3, []int{4, 3, 3}},
		{"one part has every row", rowsScenario(6, false, closed(2)), 1, []int{6}},
		{"more parts than rows", rowsScenario(2, false, closed(4)), 4, []int{1, 1, 0, 0}},
		{"more parts than workers and rows", rowsScenario(2, false, closed(3)), 5, []int{1, 1, 0, 0, 0}},
		// Requests 10 at concurrency 5 over 3 are 4, 3, 3 (the workers 2,
		// 2, 1): the iterations, not the workers, draw the rows.
		{"a request count governs", rowsScenario(10, false, Phase{Name: "r", Concurrency: 5, Requests: 10}), 3, []int{4, 3, 3}},
		// Setup draws one row per virtual user: 2, 2, 1.
		{"setup follows the virtual users", rowsScenario(10, true, Phase{Name: "r", Concurrency: 5, Requests: 10}), 3, []int{4, 4, 2}},
		// Worker-seconds: 1×5 s + 2×10 s against 2×10 s, 25:20 of 9 rows.
		{"phases add up by their work", rowsScenario(9, false, warm, closed(4)), 2, []int{5, 4}},
		// Segment 2's warm-up worker does not run: its case has no
		// measured worker there, so the case is dropped.
		{"a dropped case draws nothing", rowsScenario(6, false, Phase{Name: "w", Warmup: true, Concurrency: 2, Duration: time.Second}, closed(1)), 2, []int{6, 0}},
		{"a source no case draws from is split evenly", unused, 3, []int{3, 2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			next := 0
			for i := 1; i <= tc.n; i++ {
				r := segmentRows(tc.sc, Segment{i, tc.n})[0]
				if r.Lo != next {
					t.Errorf("segment %d/%d starts at row %d, want %d", i, tc.n, r.Lo, next)
				}
				next = r.Hi
				got = append(got, r.Hi-r.Lo)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("rows per segment %v, want %v", got, tc.want)
			}
		})
	}
}

// For every closed split the parts' rows cover the file exactly once,
// and a part without a worker gets none.
func TestSegmentRowsPartition(t *testing.T) {
	for conc := 1; conc <= 6; conc++ {
		for n := 1; n <= 7; n++ {
			for rows := 0; rows <= 12; rows++ {
				sc := rowsScenario(rows, false, Phase{Name: "m", Concurrency: conc, Duration: time.Second})
				next := 0
				for i := 1; i <= n; i++ {
					r := segmentRows(sc, Segment{i, n})[0]
					if r.Lo != next || r.Hi < r.Lo || i > conc && r.Hi > r.Lo {
						t.Fatalf("c=%d, %d rows over %d: segment %d has [%d, %d), next row %d", conc, rows, n, i, r.Lo, r.Hi, next)
					}
					next = r.Hi
				}
				if next != rows {
					t.Fatalf("c=%d, %d rows over %d: the parts end at row %d", conc, rows, n, next)
				}
			}
		}
	}
}

// Split slices unique sources only, and never its input's.
func TestSplitData(t *testing.T) {
	sc := rowsScenario(5, false, Phase{Name: "m", Concurrency: 2, Duration: time.Second})
	seq := &DataSource{Name: "s", Mode: DataSequential, Rows: sc.Data[0].Rows}
	sc.Data = append(sc.Data, seq)
	part, _ := Split(sc, Segment{2, 2})
	if diff := cmp.Diff(sc.Data[0].Rows[3:], part.Data[0].Rows); diff != "" {
		t.Errorf("unique source of segment 2/2 (-want +got):\n%s", diff)
	}
	if part.Data[1] != seq || len(sc.Data[0].Rows) != 5 {
		t.Errorf("sequential source %d rows, the original unique one %d; want both whole (5)", len(part.Data[1].Rows), len(sc.Data[0].Rows))
	}
}

// A case a segment gets nothing of is dropped with the reason of its
// first measured phase.
func TestSplitWhy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase Phase
		seg   Segment
		want  string
	}{
		{"open model, 2 requests over 3 segments: the third gets none", Phase{Name: "m", Rate: Rate{From: 10, To: 10}, Requests: 2, MaxInFlight: 10}, Segment{3, 3},
			`phase "m" sends 2 requests in all, one each for the first 2 segments`},
		{"closed model, 2 workers over 3 segments: the third gets none", Phase{Name: "m", Concurrency: 2, Duration: time.Second}, Segment{3, 3},
			`phase "m" has concurrency 2, one worker each for the first 2 segments`},
		{"many requests but no worker: the concurrency is why", Phase{Name: "m", Concurrency: 2, Requests: 100}, Segment{3, 3},
			`phase "m" has concurrency 2, one worker each for the first 2 segments`},
		{"few requests among the segments with a worker", Phase{Name: "m", Concurrency: 4, Requests: 2}, Segment{3, 4},
			`phase "m" sends 2 requests in all, one each for the first 2 segments`},
		{"a share: nothing dropped", Phase{Name: "m", Concurrency: 4, Requests: 8}, Segment{3, 4}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &Scenario{Cases: []Case{{ID: "a", Phases: []Phase{{Name: "warm", Warmup: true, Concurrency: 9, Requests: 9}, tc.phase}}}}
			_, dropped := Split(sc, tc.seg)
			got := ""
			if len(dropped) == 1 {
				got = dropped[0].Why
			}
			if got != tc.want || len(dropped) > 1 {
				t.Errorf("dropped %v, want reason %q", dropped, tc.want)
			}
		})
	}
}

// splitPhaseOK is splitPhase with ok for "the share is not zero".
func splitPhaseOK(ph Phase, s Segment) (Phase, bool) {
	part, why := splitPhase(ph, s)
	return part, why == ""
}
