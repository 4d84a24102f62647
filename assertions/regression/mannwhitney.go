// Package regression decides whether a metric got worse between two sets of
// trials, the way a careful engineer reads benchmark results: the change must
// exceed a tolerance and be statistically significant (a Mann–Whitney U rank
// test, as benchstat uses), or the verdict is "inconclusive", not "fine".
package regression

import (
	"math"
	"slices"
)

// MannWhitney is the two-sided Mann–Whitney U test of samples a and b.
// U is the statistic for a (the number of pairs where a wins, ties half);
// P is the two-sided p-value: exact for small samples (conditional on the
// ties observed, if any), else the normal approximation with tie and
// continuity corrections.
type MannWhitney struct {
	U     float64
	P     float64
	Exact bool
}

// exactLimit bounds n·m for the exact distribution, which costs O(n·m·min(n,m)).
const exactLimit = 400

// MannWhitneyU runs the test. Either sample empty gives P = 1.
func MannWhitneyU(a, b []float64) MannWhitney {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return MannWhitney{P: 1}
	}
	ranks, ties := rank(a, b)
	var ra float64
	for i := 0; i < n; i++ {
		ra += ranks[i]
	}
	u := ra - float64(n*(n+1))/2
	switch {
	case !ties && n*m <= exactLimit:
		return MannWhitney{U: u, P: exactP(n, m, u), Exact: true}
	case n*m <= exactLimit:
		return MannWhitney{U: u, P: exactTiedP(n, ranks, ra), Exact: true}
	}
	return MannWhitney{U: u, P: normalP(n, m, u, ranks)}
}

// rank gives the midranks (1-based) of a followed by b in the pooled sample.
func rank(a, b []float64) (ranks []float64, ties bool) {
	type obs struct {
		v float64
		i int
	}
	all := make([]obs, 0, len(a)+len(b))
	for i, v := range a {
		all = append(all, obs{v, i})
	}
	for i, v := range b {
		all = append(all, obs{v, len(a) + i})
	}
	slices.SortFunc(all, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	ranks = make([]float64, len(all))
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		if j-i > 1 {
			ties = true
		}
		mid := float64(i+j+1) / 2 // average of ranks i+1 … j
		for k := i; k < j; k++ {
			ranks[all[k].i] = mid
		}
		i = j
	}
	return ranks, ties
}

// exactP is the two-sided p-value from the exact null distribution of U:
// counts[u] = number of arrangements of n a's and m b's giving statistic u.
func exactP(n, m int, u float64) float64 {
	counts := uCounts(n, m)
	var total, le, ge float64
	for k, c := range counts {
		total += c
		if float64(k) <= u {
			le += c
		}
		if float64(k) >= u {
			ge += c
		}
	}
	return math.Min(1, 2*math.Min(le, ge)/total)
}

// uCounts builds the distribution with the recurrence
// f(n, m, u) = f(n−1, m, u−m) + f(n, m−1, u): the largest observation is
// either an a (beating all m b's) or a b.
func uCounts(n, m int) []float64 {
	// prev[j][u] holds f(i−1, j, u) while row i is built.
	size := n*m + 1
	prev := make([][]float64, m+1)
	for j := range prev {
		prev[j] = make([]float64, size)
		prev[j][0] = 1 // f(0, j, 0) = 1
	}
	for i := 1; i <= n; i++ {
		cur := make([][]float64, m+1)
		for j := 0; j <= m; j++ {
			cur[j] = make([]float64, size)
			for u := 0; u < size; u++ {
				var v float64
				if u >= j {
					v += prev[j][u-j]
				}
				if j > 0 {
					v += cur[j-1][u]
				}
				cur[j][u] = v
			}
		}
		prev = cur
	}
	return prev[m]
}

// exactTiedP is the two-sided p-value from the exact permutation
// distribution of a's rank sum given the midranks observed: under the null
// every choice of which n of the pooled observations are a's is equally
// likely. Trials often tie (latency percentiles are quantised by the
// histogram), and on small tied samples the normal approximation is far
// off: it calls 3 vs 3 separated trials significant, which no arrangement
// of six values can be.
func exactTiedP(n int, ranks []float64, ra float64) float64 {
	// Midranks are multiples of ½: doubled, they are integers to count by.
	twice := make([]int, len(ranks))
	total := 0
	for i, r := range ranks {
		twice[i] = int(math.Round(2 * r))
		total += twice[i]
	}
	// ways[k][s] counts the choices of k observations, among those seen so
	// far, whose doubled ranks sum to s.
	ways := make([][]float64, n+1)
	for k := range ways {
		ways[k] = make([]float64, total+1)
	}
	ways[0][0] = 1
	hi := 0
	for i, r := range twice {
		hi += r
		for k := min(n, i+1); k >= 1; k-- {
			for s := hi; s >= r; s-- {
				ways[k][s] += ways[k-1][s-r]
			}
		}
	}
	obs := int(math.Round(2 * ra))
	var all, le, ge float64
	for s, c := range ways[n] {
		all += c
		if s <= obs {
			le += c
		}
		if s >= obs {
			ge += c
		}
	}
	return math.Min(1, 2*math.Min(le, ge)/all)
}

// normalP approximates the two-sided p-value for large or tied samples.
func normalP(n, m int, u float64, ranks []float64) float64 {
	nf, mf := float64(n), float64(m)
	N := nf + mf
	mean := nf * mf / 2
	// Tie correction: subtract Σ(t³ − t) over groups of tied ranks.
	counts := map[float64]int{}
	for _, r := range ranks {
		counts[r]++
	}
	var tieSum float64
	for _, t := range counts {
		tf := float64(t)
		tieSum += tf*tf*tf - tf
	}
	variance := nf * mf / 12 * ((N + 1) - tieSum/(N*(N-1)))
	if variance <= 0 {
		return 1 // every observation tied: no evidence of a difference
	}
	z := (math.Abs(u-mean) - 0.5) / math.Sqrt(variance)
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}
