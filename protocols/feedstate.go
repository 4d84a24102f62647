package protocols

import "github.com/loadgate/loadgate/scenarios"

// Source is the data source the feed hands out rows of.
func (f *Feed) Source() *scenarios.DataSource { return f.src }

// Exhausted reports whether the feed has no row left to hand out and its
// source's policy is to stop: what ended a phase that ran out of data.
func (f *Feed) Exhausted() bool {
	if f.src.Mode == scenarios.DataRandom || f.src.OnExhausted != scenarios.ExhaustedStop {
		return false
	}
	return f.next.Load() >= int64(len(f.src.Rows))
}
