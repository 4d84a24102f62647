package reporters

import (
	"fmt"
	"math"
	"time"

	"github.com/loadgate/loadgate/history"
	"github.com/loadgate/loadgate/history/changepoint"
)

// The synthetic history: twelve runs of main on one kind of machine, in
// which p99 rose by a fifth at run 7 and fell below its old level at run
// 10 while rps held, then one run on another machine. The analyses are
// cut by hand where those steps are, so the renderers are tested apart
// from the detector.

var historyT0 = time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC)

var (
	historyEnvA = history.Environment{OS: "linux", Arch: "amd64", CPUModel: "AMD EPYC 7763 64-Core Processor", Cores: 4, Runner: "ubuntu-24.04", Version: "v1.2.0"}
	historyEnvB = history.Environment{OS: "linux", Arch: "arm64", CPUModel: "Neoverse-N1", Cores: 2, Version: "v1.2.0"}
)

// historyCommits are the commits of main's twelve runs; no run's parent
// is the run before it.
var historyCommits = []string{
	"0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "1b2c3d4e5f60718293a4b5c6d7e8f90123456789",
	"2c3d4e5f60718293a4b5c6d7e8f9012345678901", "3d4e5f60718293a4b5c6d7e8f901234567890123",
	"4e5f60718293a4b5c6d7e8f90123456789012345", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
	"e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3", "5f60718293a4b5c6d7e8f9012345678901234567",
	"60718293a4b5c6d7e8f901234567890123456789", "718293a4b5c6d7e8f90123456789012345678901",
	"8293a4b5c6d7e8f9012345678901234567890123", "93a4b5c6d7e8f901234567890123456789012345",
}

// historyWiggle is deterministic noise, in hundredths.
var historyWiggle = []float64{0, 1, -1, 2, -2, 0, 1, -1, 0, 1, 0, -1}

const historyLoad = "5e1f0c2a9b77"

func historyEntries() []*history.Entry {
	var out []*history.Entry
	for i, sha := range historyCommits {
		p99 := 1.25e6
		switch {
		case i >= 9:
			p99 = 1.2e6
		case i >= 6:
			p99 = 1.5e6
		}
		w := 1 + historyWiggle[i]/100
		e := historyEntry(historyEnvA, historyT0.Add(time.Duration(i)*24*time.Hour), sha, 4000*w, p99*w, 0.001*w)
		out = append(out, e)
	}
	return append(out, historyEntry(historyEnvB, historyT0.Add(12*24*time.Hour), "c0ffee00112233445566778899aabbccddeeff00", 2100, 2.4e6, 0))
}

// historyEntry is one run of the gate scenario's hello case, with five
// trials around each median.
func historyEntry(env history.Environment, at time.Time, commit string, rps, p99, errRate float64) *history.Entry {
	trials := func(m float64) []float64 {
		return []float64{m * 0.98, m * 0.99, m, m * 1.01, m * 1.03}
	}
	return &history.Entry{
		Schema: history.EntrySchema, Scenario: "gate", Time: at, Commit: commit, Parent: "ffff" + commit[4:],
		Branch: "main", Version: env.Version, Environment: env,
		Cases: []history.CaseEntry{{ID: "hello", Target: "hello", Load: historyLoad, Phases: []string{"measured"}, Metrics: []history.Metric{
			{Name: "rps", Median: rps, Trials: trials(rps)},
			{Name: "p99", Median: p99, Trials: trials(p99)},
			{Name: "error_rate", Median: errRate, Trials: trials(errRate)},
			{Name: "p90", Median: p99 * 0.8},
		}}},
	}
}

// historyCuts are where the fixture's p99 on machine A changed level.
var historyCuts = map[string][]int{"p99/" + historyEnvA.ID(): {6, 9}}

// historyAnalyses cuts every series of the fixture at historyCuts, as
// history.Analyze would had the detector found those change points.
func historyAnalyses() []*history.Analysis {
	series := history.BuildSeries(historyEntries(), history.Filter{})
	out := make([]*history.Analysis, len(series))
	for i, s := range series {
		out[i] = cutAt(s, historyCuts[s.Key.Metric+"/"+s.Key.Env], 0.0004)
	}
	return out
}

// cutAt is s cut into segments at the points cuts, each change point with
// p-value p.
func cutAt(s *history.Series, cuts []int, p float64) *history.Analysis {
	xs := s.Values()
	a := &history.Analysis{Series: s}
	bounds := append(append([]int{0}, cuts...), len(xs))
	for k := 0; k+1 < len(bounds); k++ {
		a.Segments = append(a.Segments, segment(xs, bounds[k], bounds[k+1]))
	}
	for k, at := range cuts {
		before, after := a.Segments[k].Level, a.Segments[k+1].Level
		a.Changes = append(a.Changes, history.Change{
			Index: at, Before: before, After: after, Magnitude: (after - before) / math.Abs(before),
			Worse: s.Info.Worse(before, after), PValue: p, Good: s.Points[at-1].Run, FirstChanged: s.Points[at].Run,
		})
	}
	return a
}

func segment(xs []float64, start, end int) history.Segment {
	vals := xs[start:end]
	var sum float64
	for _, v := range vals {
		sum += v
	}
	seg := history.Segment{Start: start, End: end, Level: sum / float64(len(vals))}
	if len(vals) > 1 {
		var ss float64
		for _, v := range vals {
			ss += (v - seg.Level) * (v - seg.Level)
		}
		seg.Spread = math.Sqrt(ss/float64(len(vals)-1)) / seg.Level
	}
	return seg
}

// historyOptions are the defaults of `history show` with --min-magnitude
// 2%, commit pages on GitHub, and a git that knows the commits of the
// first change only.
func historyOptions() HistoryOptions {
	return HistoryOptions{
		Options: changepoint.Options{Window: 50, PValue: 0.001, MinMagnitude: 0.02},
		Commits: func(good, first *history.Entry) (int, bool) {
			if good.Commit == historyCommits[5] && first.Commit == historyCommits[6] {
				return 3, true
			}
			return 0, false
		},
		CommitURL: func(sha string) string { return fmt.Sprintf("https://github.com/acme/api/commit/%s", sha) },
	}
}
