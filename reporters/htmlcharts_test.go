package reporters

import (
	"slices"
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

func TestWholeSeconds(t *testing.T) {
	sec := func(at int, completed int64) results.Second { return results.Second{At: at, Completed: completed} }
	trial := func(requests int64, elapsed time.Duration) results.Trial {
		return results.Trial{Requests: requests, Elapsed: elapsed}
	}
	for _, tc := range []struct {
		name string
		p    results.PhaseResult
		want [][]int // the At of each kept second, per run
	}{
		{"a phase: its partial last second goes",
			results.PhaseResult{Elapsed: 3*time.Second + 5*time.Millisecond, Series: []results.Second{sec(0, 10), sec(1, 10), sec(2, 10), sec(3, 1)}},
			[][]int{{0, 1, 2}}},
		{"a phase that ended on a whole second keeps them all",
			results.PhaseResult{Elapsed: 2 * time.Second, Series: []results.Second{sec(0, 10), sec(1, 10)}},
			[][]int{{0, 1}}},
		{"one trial is a phase",
			results.PhaseResult{Elapsed: 1500 * time.Millisecond, Series: []results.Second{sec(0, 10), sec(1, 5)},
				Trials: []results.Trial{trial(15, 1500*time.Millisecond)}},
			[][]int{{0}}},
		{"trials of 1 s spilling into a second each: every spill goes, each trial a run",
			results.PhaseResult{Elapsed: 3007 * time.Millisecond,
				Series: []results.Second{sec(0, 39154), sec(1, 6), sec(2, 34875), sec(3, 15), sec(4, 32728), sec(5, 1)},
				Trials: []results.Trial{trial(39160, 1001*time.Millisecond), trial(34890, 1005*time.Millisecond), trial(32729, 1001*time.Millisecond)}},
			[][]int{{0}, {2}, {4}}},
		{"trials ending within their last second",
			results.PhaseResult{Elapsed: 3 * time.Second,
				Series: []results.Second{sec(0, 100), sec(1, 100), sec(2, 100)},
				Trials: []results.Trial{trial(100, 1000*time.Millisecond), trial(100, 1000*time.Millisecond), trial(100, 1000*time.Millisecond)}},
			[][]int{{0}, {1}, {2}}},
		{"trials of 2.5 s",
			results.PhaseResult{Elapsed: 5 * time.Second,
				Series: []results.Second{sec(0, 10), sec(1, 10), sec(2, 5), sec(3, 10), sec(4, 10), sec(5, 5)},
				Trials: []results.Trial{trial(25, 2500*time.Millisecond), trial(25, 2500*time.Millisecond)}},
			[][]int{{0, 1}, {3, 4}}},
		{"a series that does not add up to the trials is one run",
			results.PhaseResult{Elapsed: 2500 * time.Millisecond,
				Series: []results.Second{sec(0, 10), sec(1, 10), sec(2, 5)},
				Trials: []results.Trial{trial(7, time.Second), trial(40, 1500*time.Millisecond)}},
			[][]int{{0, 1}}},
	} {
		var got [][]int
		for _, run := range wholeSeconds(&tc.p) {
			var ats []int
			for _, s := range run {
				ats = append(ats, s.At)
			}
			got = append(got, ats)
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
