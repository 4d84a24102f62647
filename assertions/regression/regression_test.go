package regression

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestMannWhitneyTextbookValues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		a, b  []float64
		u, p  float64
		exact bool
	}{
		// Complete separation, 5 vs 5: the most extreme of C(10,5) = 252 arrangements, both tails.
		{"5 vs 5 separated", []float64{1, 4, 2, 5, 3}, []float64{6, 8, 7, 9, 10}, 0, 2.0 / 252, true},
		// 4 vs 4 separated: 2/C(8,4) = 2/70.
		{"4 vs 4 separated", []float64{5, 6, 7, 8}, []float64{1, 2, 3, 4}, 16, 2.0 / 70, true},
		// 3 vs 3 separated: 2/20 = 0.1, which is why 3 trials a side never reach 0.05.
		{"3 vs 3 separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, true},
		// U = 17 of 20; P(U ≥ 17) = P(U ≤ 3) = (1+1+2+3)/126, doubled.
		{"5 vs 4 overlapping", []float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, 17, 14.0 / 126, true},
		// Identical samples: no evidence at all.
		{"all tied", []float64{3, 3, 3}, []float64{3, 3, 3}, 4.5, 1, true},
		// Separated but tied within each side, as quantised percentiles
		// often are: still 2 of 20 arrangements, never below 0.05.
		{"3 vs 3 separated with ties", []float64{1, 1, 1}, []float64{2, 2, 2}, 0, 0.1, true},
		// 5 vs 5 with a tie across the samples: a's midranks 1, 2.5, 2.5, 5, 5
		// are the lowest possible sum, reached by 3 of 252 arrangements (any
		// two of the three 3s), both tails.
		{"5 vs 5 tied across", []float64{1, 2, 2, 3, 3}, []float64{3, 4, 4, 5, 6}, 1, 2 * 3.0 / 252, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MannWhitneyU(tc.a, tc.b)
			if got.U != tc.u || math.Abs(got.P-tc.p) > 1e-9 || got.Exact != tc.exact {
				t.Errorf("got U=%v p=%.6f exact=%v, want U=%v p=%.6f exact=%v", got.U, got.P, got.Exact, tc.u, tc.p, tc.exact)
			}
		})
	}
}

// TestExactDistributionMatchesEnumeration checks the recurrence against
// brute force: every way of choosing which n of n+m ordered values are a's.
func TestExactDistributionMatchesEnumeration(t *testing.T) {
	for n := 1; n <= 6; n++ {
		for m := 1; m <= 6; m++ {
			want := make([]float64, n*m+1)
			for mask := 0; mask < 1<<(n+m); mask++ {
				if popcount(mask) != n {
					continue
				}
				// Position k (ascending) holds an a when bit k is set; U counts b's below each a.
				u, bs := 0, 0
				for k := 0; k < n+m; k++ {
					if mask&(1<<k) != 0 {
						u += bs
					} else {
						bs++
					}
				}
				want[u]++
			}
			got := uCounts(n, m)
			for u := range want {
				if got[u] != want[u] {
					t.Fatalf("n=%d m=%d: count(U=%d) = %v, want %v", n, m, u, got[u], want[u])
				}
			}
		}
	}
}

// TestExactTiedMatchesEnumeration checks the tied distribution against
// brute force over every split of small pooled samples with many ties.
func TestExactTiedMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		a, b := make([]float64, n), make([]float64, m)
		for i := range a {
			a[i] = float64(rng.IntN(4))
		}
		for i := range b {
			b[i] = float64(rng.IntN(4))
		}
		ranks, _ := rank(a, b)
		var ra float64
		for _, r := range ranks[:n] {
			ra += r
		}
		// Every choice of n positions of the pooled sample as a's.
		var all, le, ge float64
		for mask := 0; mask < 1<<(n+m); mask++ {
			if popcount(mask) != n {
				continue
			}
			var s float64
			for k := range n + m {
				if mask&(1<<k) != 0 {
					s += ranks[k]
				}
			}
			all++
			if s <= ra+1e-9 {
				le++
			}
			if s >= ra-1e-9 {
				ge++
			}
		}
		want := math.Min(1, 2*math.Min(le, ge)/all)
		if got := exactTiedP(n, ranks, ra); math.Abs(got-want) > 1e-12 {
			t.Fatalf("a=%v b=%v: p = %v, enumeration gives %v", a, b, got, want)
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestNormalApproximationAgreesWithExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		a, b := make([]float64, 18), make([]float64, 18)
		for i := range a {
			a[i], b[i] = rng.NormFloat64(), rng.NormFloat64()+0.5
		}
		exact := MannWhitneyU(a, b)
		ranks, _ := rank(a, b)
		approx := normalP(len(a), len(b), exact.U, ranks)
		if !exact.Exact || math.Abs(exact.P-approx) > 0.02 {
			t.Errorf("exact p %.4f vs normal %.4f", exact.P, approx)
		}
	}
}

func TestJudge(t *testing.T) {
	base := []float64{1000, 1010, 990, 1005, 995}
	for _, tc := range []struct {
		name   string
		base   []float64
		cand   []float64
		dir    Direction
		tol    float64
		want   Status
		reason string
	}{
		{"same throughput passes", base, []float64{1002, 998, 1008, 993, 1001}, HigherIsBetter, 0.05, Pass, "within"},
		{"rps 10% lower is a regression", base, []float64{900, 905, 895, 898, 903}, HigherIsBetter, 0.05, Regressed, "significant"},
		{"rps 10% higher is not", base, []float64{1100, 1105, 1095, 1098, 1103}, HigherIsBetter, 0.05, Pass, "higher"},
		{"latency 10% higher is a regression", base, []float64{1100, 1105, 1095, 1098, 1103}, LowerIsBetter, 0.05, Regressed, "significant"},
		{"latency 10% lower is not", base, []float64{900, 905, 895, 898, 903}, LowerIsBetter, 0.05, Pass, "lower"},
		{"within tolerance even if significant", base, []float64{970, 975, 968, 972, 971}, HigherIsBetter, 0.05, Pass, "within"},
		{"one trial a side cannot tell", []float64{1000}, []float64{800}, HigherIsBetter, 0.05, Inconclusive, "cannot show"},
		{"3 vs 3 never significant", base[:3], []float64{800, 810, 790}, HigherIsBetter, 0.05, Inconclusive,
			"3 vs 3 trials cannot show significance: the smallest p they can give is 0.100 (use trials: 5 or more)"},
		{"4 vs 3 never significant either", base[:4], []float64{800, 810, 790}, HigherIsBetter, 0.05, Inconclusive,
			"smallest p they can give is 0.057"},
		// 5 vs 3 wholly apart: 2/56 = 0.036, which the old rule of thumb
		// "3 trials a side can never reach p < 0.05" wrongly refused.
		{"5 vs 3 can be significant", base, []float64{800, 810, 790}, HigherIsBetter, 0.05, Regressed, "p = 0.036, 5 vs 3 trials"},
		{"2 vs 8 can be significant", base[:2], []float64{800, 810, 790, 805, 795, 801, 799, 803}, HigherIsBetter, 0.05, Regressed, "2 vs 8 trials"},
		{"a baseline of one trial needs more on both sides", base[:1], []float64{800, 810, 790, 805, 795}, HigherIsBetter, 0.05, Inconclusive,
			"the baseline has 1; give both runs trials: 5 or more"},
		{"too much spread", base, []float64{500, 1400, 700, 1300, 800}, HigherIsBetter, 0.05, Inconclusive, "not significant"},
		{"no trials", nil, base, HigherIsBetter, 0.05, Inconclusive, "no trials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := Judge(tc.base, tc.cand, tc.dir, tc.tol)
			if j.Status != tc.want || !strings.Contains(j.Reason, tc.reason) {
				t.Errorf("got %s (%s), want %s containing %q", j.Status, j.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestSimulatedErrorRates measures the judgement on synthetic trials like a
// noisy CI runner produces: 5 trials a side, coefficient of variation 3 %.
// Identical distributions must be called regressions at most 5 % of the
// time; a true 10 % drop must be caught at least 90 % of the time.
func TestSmallestP(t *testing.T) {
	for _, tc := range []struct {
		n, m int
		want float64
	}{
		{1, 1, 1}, {3, 3, 2.0 / 20}, {4, 3, 2.0 / 35}, {5, 3, 2.0 / 56}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {0, 5, 1},
	} {
		if got := SmallestP(tc.n, tc.m); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("SmallestP(%d, %d) = %v, want %v", tc.n, tc.m, got, tc.want)
		}
		// It is what the test gives to samples wholly apart.
		if tc.n > 0 && tc.m > 0 {
			a, b := make([]float64, tc.n), make([]float64, tc.m)
			for i := range a {
				a[i] = float64(i)
			}
			for i := range b {
				b[i] = float64(100 + i)
			}
			if got := MannWhitneyU(a, b).P; math.Abs(got-math.Min(1, tc.want)) > 1e-12 {
				t.Errorf("MannWhitneyU of %d vs %d apart: p = %v, want %v", tc.n, tc.m, got, tc.want)
			}
		}
	}
}

func TestSimulatedErrorRates(t *testing.T) {
	const runs = 4000
	rng := rand.New(rand.NewPCG(7, 11))
	sample := func(mean float64) []float64 {
		xs := make([]float64, 5)
		for i := range xs {
			xs[i] = mean * (1 + 0.03*rng.NormFloat64())
		}
		return xs
	}
	var falsePositive, detected int
	for i := 0; i < runs; i++ {
		if Judge(sample(1000), sample(1000), HigherIsBetter, 0.05).Status == Regressed {
			falsePositive++
		}
		if Judge(sample(1000), sample(900), HigherIsBetter, 0.05).Status == Regressed {
			detected++
		}
	}
	fpRate, detection := float64(falsePositive)/runs, float64(detected)/runs
	t.Logf("5 vs 5 trials, CV 3%%, tolerance 5%%: false-positive rate %.2f%%, detection of a 10%% drop %.2f%%",
		100*fpRate, 100*detection)
	if fpRate > 0.05 {
		t.Errorf("false-positive rate %.3f > 0.05", fpRate)
	}
	if detection < 0.90 {
		t.Errorf("detection %.3f < 0.90", detection)
	}
}
