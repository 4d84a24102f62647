package protocols

import (
	"math/rand/v2"
	"sync/atomic"

	"github.com/loadgate/loadgate/scenarios"
)

// Feed hands out the rows of one data source (SPEC §12) for a whole run:
// one feed per source, shared by every phase, case and worker, so that a
// unique source never hands a row out twice and a sequential one goes on
// where the previous phase stopped.
type Feed struct {
	src  *scenarios.DataSource
	next atomic.Int64 // draws so far, of sequential and unique sources
}

// Feeds are a run's feeds, by index into Scenario.Data.
type Feeds []*Feed

// NewFeeds makes one feed per data source of a run.
func NewFeeds(data []*scenarios.DataSource) Feeds {
	f := make(Feeds, len(data))
	for i, src := range data {
		f[i] = &Feed{src: src}
	}
	return f
}

// Draw returns the next row, or false when the source is exhausted and
// its policy is to stop. rng is the drawing worker's own, for random.
func (f *Feed) Draw(rng *rand.Rand) ([]string, bool) {
	var r int64
	if f.src.Mode == scenarios.DataRandom {
		r = rng.Int64()
	} else {
		r = f.next.Add(1) - 1
	}
	i, ok := rowIndex(f.src.Mode, f.src.OnExhausted, int64(len(f.src.Rows)), r)
	if !ok {
		return nil, false
	}
	return f.src.Rows[i], true
}

// rowIndex is which of n rows a draw hands out: for random, draw is a
// random non-negative number; otherwise it counts the draws made before
// this one across the run. ok is false when there is no row to hand out.
func rowIndex(mode scenarios.DataMode, exhausted scenarios.DataExhausted, n, draw int64) (int, bool) {
	switch {
	case n <= 0 || draw < 0:
		return 0, false
	case mode == scenarios.DataRandom:
		return int(draw % n), true
	case draw >= n && exhausted == scenarios.ExhaustedStop:
		return 0, false
	}
	return int(draw % n), true
}
