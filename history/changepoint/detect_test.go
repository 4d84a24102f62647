package changepoint

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// levels builds a series of n runs around each level (relative noise of
// cov), with a fixed seed so that every run of the test sees the same
// values.
func levels(seed uint64, cov float64, steps ...step) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	var xs []float64
	for _, s := range steps {
		for range s.runs {
			xs = append(xs, s.level*(1+cov*r.NormFloat64()))
		}
	}
	return xs
}

type step struct {
	level float64
	runs  int
}

func indexes(cps []ChangePoint) []int {
	out := make([]int, 0, len(cps))
	for _, cp := range cps {
		out = append(out, cp.Index)
	}
	return out
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		name string
		xs   []float64
		o    Options
		want []int
	}{
		{"empty", nil, Options{}, []int{}},
		{"too short to split", []float64{1, 2, 3}, Options{}, []int{}},
		{"flat", levels(1, 0, step{100, 60}), Options{}, []int{}},
		{"noise only", levels(2, 0.03, step{1000, 80}), Options{}, []int{}},
		{"a step without noise", levels(3, 0, step{10, 20}, step{12, 20}), Options{}, []int{20}},
		{"a 20 % drop at run 40 of 80", levels(4, 0.03, step{1000, 40}, step{800, 40}), Options{}, []int{40}},
		{"a 10 % rise in latency", levels(5, 0.02, step{2e6, 30}, step{2.2e6, 30}), Options{}, []int{30}},
		{"down and back up", levels(16, 0.02, step{1000, 30}, step{800, 30}, step{1000, 30}), Options{}, []int{30, 60}},
		{"steps further apart than a window", levels(7, 0.02, step{1000, 70}, step{900, 70}, step{1100, 70}), Options{}, []int{70, 140}},
		{"a step near the end", levels(8, 0.01, step{1000, 60}, step{700, 5}), Options{}, []int{60}},
		{"a small window still finds it", levels(9, 0.02, step{1000, 40}, step{800, 40}), Options{Window: 10}, []int{40}},
		{"min magnitude drops a small step", levels(10, 0.005, step{1000, 40}, step{1030, 40}), Options{MinMagnitude: 0.05}, []int{}},
		{"the same small step kept without it", levels(10, 0.005, step{1000, 40}, step{1030, 40}), Options{}, []int{40}},
		{"a stricter p-value keeps only the big step", levels(11, 0.03, step{1000, 40}, step{700, 40}), Options{PValue: 1e-12}, []int{40}},
		{"an error rate leaving zero", append(make([]float64, 30), levels(12, 0.1, step{0.2, 30})...), Options{}, []int{30}},
		{"NaN", []float64{1, 2, 3, 4, 5, 6, nanOf()}, Options{}, []int{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := indexes(Detect(tt.xs, tt.o)); !slices.Equal(got, tt.want) {
				t.Errorf("change points at %v, want %v", got, tt.want)
			}
		})
	}
}

func nanOf() float64 {
	zero := 0.0
	return zero / zero
}

func TestDetectDescribesTheLevels(t *testing.T) {
	xs := levels(3, 0, step{10, 20}, step{12, 25}, step{9, 20})
	cps := Detect(xs, Options{})
	want := []ChangePoint{{Index: 20, Before: 10, After: 12}, {Index: 45, Before: 12, After: 9}}
	if len(cps) != len(want) {
		t.Fatalf("change points %+v, want %+v", cps, want)
	}
	for i, cp := range cps {
		if cp.Index != want[i].Index || cp.Before != want[i].Before || cp.After != want[i].After || cp.PValue != 0 {
			t.Errorf("change point %d = %+v, want %+v with p-value 0", i, cp, want[i])
		}
	}
}

// Scaling a series, or shifting a latency series by a constant, moves no
// change point: the statistic and the t-test depend on differences only.
func TestDetectIsInvariantToUnits(t *testing.T) {
	xs := levels(13, 0.03, step{1000, 35}, step{850, 45}, step{950, 30})
	want := indexes(Detect(xs, Options{}))
	if len(want) == 0 {
		t.Fatal("no change point in a series with two steps")
	}
	scaled := make([]float64, len(xs))
	for i, x := range xs {
		scaled[i] = x*1e6 + 5e5
	}
	if got := indexes(Detect(scaled, Options{})); !slices.Equal(got, want) {
		t.Errorf("scaled series: change points %v, want %v", got, want)
	}
}

func TestDetectRepeats(t *testing.T) {
	xs := levels(14, 0.05, step{1000, 50}, step{900, 50}, step{1000, 50})
	first := Detect(xs, Options{})
	for range 3 {
		if got := Detect(xs, Options{}); !slices.Equal(got, first) {
			t.Fatalf("second detection %+v, first %+v", got, first)
		}
	}
}

func TestBestSplit(t *testing.T) {
	for _, tt := range []struct {
		xs      []float64
		tau     int
		splits  bool
		wantPos bool
	}{
		{[]float64{1, 2, 3}, 0, false, false},
		{[]float64{0, 0, 5, 5}, 2, true, true},
		{[]float64{1, 1, 1, 1, 9, 9, 9}, 4, true, true},
		{[]float64{3, 3, 3, 3, 3, 3}, 2, true, false},
	} {
		tau, q, ok := bestSplit(tt.xs)
		if ok != tt.splits || (ok && tau != tt.tau) || (q > 0) != tt.wantPos {
			t.Errorf("bestSplit(%v) = %d, %g, %v; want %d, q>0 %v, %v", tt.xs, tau, q, ok, tt.tau, tt.wantPos, tt.splits)
		}
	}
}

func BenchmarkDetect1000Runs(b *testing.B) {
	xs := levels(15, 0.05, step{1000, 400}, step{900, 300}, step{1000, 300})
	b.ReportAllocs()
	for b.Loop() {
		Detect(xs, Options{})
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 200, 201, 202, 203}, uint8(50), uint8(3))
	f.Add([]byte{}, uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, window, pexp uint8) {
		xs := make([]float64, len(raw))
		for i, b := range raw {
			xs[i] = float64(b)
		}
		o := Options{Window: int(window), PValue: 1 / float64(int(pexp%12)+1)}
		cps := Detect(xs, o)
		prev := 0
		for _, cp := range cps {
			if cp.Index <= prev || cp.Index >= len(xs) {
				t.Fatalf("change point at %d after %d in %d values", cp.Index, prev, len(xs))
			}
			if cp.PValue > o.withDefaults().PValue {
				t.Fatalf("change point with p %g above %g", cp.PValue, o.PValue)
			}
			prev = cp.Index
		}
		if again := Detect(xs, o); !slices.Equal(again, cps) {
			t.Fatalf("not repeatable: %+v then %+v", cps, again)
		}
	})
}
