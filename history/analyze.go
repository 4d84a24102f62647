package history

import (
	"math"

	"github.com/loadgate/loadgate/history/changepoint"
)

// Segment is a stretch of a series at one level: the runs between two
// change points.
type Segment struct {
	Start, End int     // the points [Start, End)
	Level      float64 // the mean of the runs' values
	// Spread is the coefficient of variation of the runs' values (their
	// standard deviation over the mean); 0 with one run.
	Spread float64
}

// Runs is how many runs the segment holds.
func (s Segment) Runs() int { return s.End - s.Start }

// Change is a change point: where a series moved from one level to
// another, and between which runs.
type Change struct {
	Index         int // the first point at the new level
	Before, After float64
	// Magnitude is the relative change of level, (After-Before)/|Before|.
	Magnitude float64
	Worse     bool // higher rps or lower latency is better
	PValue    float64
	// Good is the last run at the old level, FirstChanged the first at
	// the new: the commit that did it is in (Good.Commit, FirstChanged.Commit].
	Good, FirstChanged *Entry
}

// Analysis is a series cut into its segments at its change points.
type Analysis struct {
	Series   *Series
	Segments []Segment
	Changes  []Change
}

// Last is the newest segment.
func (a *Analysis) Last() Segment { return a.Segments[len(a.Segments)-1] }

// Analyze finds the change points of s with changepoint.Detect and cuts
// s at them. It is a pure function of the series and the options.
func Analyze(s *Series, o changepoint.Options) *Analysis {
	xs := s.Values()
	a := &Analysis{Series: s}
	start := 0
	for _, cp := range changepoint.Detect(xs, o) {
		a.Segments = append(a.Segments, segmentOf(xs, start, cp.Index))
		ch := Change{
			Index: cp.Index, Before: cp.Before, After: cp.After, PValue: cp.PValue,
			Worse: s.Info.Worse(cp.Before, cp.After),
			Good:  s.Points[cp.Index-1].Run, FirstChanged: s.Points[cp.Index].Run,
		}
		if cp.Before != 0 {
			ch.Magnitude = (cp.After - cp.Before) / math.Abs(cp.Before)
		}
		a.Changes = append(a.Changes, ch)
		start = cp.Index
	}
	if len(xs) > 0 {
		a.Segments = append(a.Segments, segmentOf(xs, start, len(xs)))
	}
	return a
}

func segmentOf(xs []float64, start, end int) Segment {
	seg := Segment{Start: start, End: end}
	vals := xs[start:end]
	if len(vals) == 0 {
		return seg
	}
	var sum float64
	for _, v := range vals {
		sum += v
	}
	seg.Level = sum / float64(len(vals))
	if len(vals) > 1 && seg.Level != 0 {
		var ss float64
		for _, v := range vals {
			ss += (v - seg.Level) * (v - seg.Level)
		}
		seg.Spread = math.Sqrt(ss/float64(len(vals)-1)) / math.Abs(seg.Level)
	}
	return seg
}
