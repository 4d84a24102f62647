package scenarios

import (
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
			got, ok := SplitPhase(tc.phase, tc.seg)
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

func TestSplitScenarioEmptySegment(t *testing.T) {
	sc := &Scenario{Cases: []Case{{ID: "a", Phases: []Phase{
		{Name: "warm", Warmup: true, Concurrency: 3, Requests: 30},
		{Name: "m", Concurrency: 2, Duration: time.Second},
	}}}}
	part, empty := SplitScenario(sc, Segment{3, 3})
	if !empty {
		t.Errorf("segment 3/3 of 2 workers has work: %+v", part.Cases[0].Phases)
	}
	if part, empty := SplitScenario(sc, Segment{2, 3}); empty || len(part.Cases[0].Phases) != 2 {
		t.Errorf("segment 2/3 should keep both phases, got %+v", part.Cases[0].Phases)
	}
	if len(sc.Cases[0].Phases) != 2 || sc.Cases[0].Phases[1].Concurrency != 2 {
		t.Error("SplitScenario modified its input")
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
				part, ok := SplitPhase(ph, Segment{i, n})
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
