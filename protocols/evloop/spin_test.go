package evloop

import (
	"testing"
	"time"
)

func TestSpinLead(t *testing.T) {
	const us = time.Microsecond
	for _, tc := range []struct{ gap, oversleep, want time.Duration }{
		{time.Second, maxSpinLead, maxSpinLead}, // a slow rate, waits not yet seen: poll the whole lead
		{160 * us, maxSpinLead, maxSpinLead},
		{time.Second, 20 * us, 20*us + spinMargin}, // waits end 20 µs late: that and the margin
		{time.Second, 0, spinMargin},               // waits end on time: the margin alone
		{100 * us, maxSpinLead, 25 * us},           // 10 000/s: a quarter of the gap
		{100 * us, 10 * us, 10*us + spinMargin},    // less than a quarter is needed
		{20 * us, 20 * us, 5 * us},                 // 50 000/s
		{0, 20 * us, 0},                            // arrivals due together
		{-time.Millisecond, 20 * us, 0},            // a falling clock never makes a negative lead
	} {
		if got := spinLead(tc.gap, tc.oversleep); got != tc.want {
			t.Errorf("spinLead(%v, %v) = %v, want %v", tc.gap, tc.oversleep, got, tc.want)
		}
	}
}

func TestNextOversleep(t *testing.T) {
	const us = time.Microsecond
	for _, tc := range []struct {
		name                 string
		smoothed, late, want time.Duration
	}{
		{"the same lateness keeps it", 20 * us, 20 * us, 20 * us},
		{"a later wait raises it by an eighth of the difference", 20 * us, 28 * us, 21 * us},
		{"an earlier wait lowers it", 20 * us, 12 * us, 19 * us},
		{"a wait ended early counts as on time", 16 * us, -5 * us, 14 * us},
		{"a descheduled wait counts as twice the longest lead", 0, 10 * time.Millisecond, 2 * maxSpinLead / 8},
	} {
		if got := nextOversleep(tc.smoothed, tc.late); got != tc.want {
			t.Errorf("%s: nextOversleep(%v, %v) = %v, want %v", tc.name, tc.smoothed, tc.late, got, tc.want)
		}
	}
	// Waits that keep ending 20 µs late bring a cautious start down to them.
	o := time.Duration(maxSpinLead)
	for range 100 {
		o = nextOversleep(o, 20*us)
	}
	if o < 20*us || o > 21*us {
		t.Errorf("after 100 waits 20 µs late, oversleep = %v, want about 20µs", o)
	}
}

// The spin score climbs with each wait whose answers came soon and falls
// twice as fast with each that did not, within its bounds: a server slower
// than maxSpin stops the polling within a few waits.
func TestNextSpin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		start   int
		catches []bool
		want    int
		spins   bool
	}{
		{"a fast server keeps it", 0, []bool{true, true, true}, 3, true},
		{"the score is bounded above", maxSpinScore, []bool{true}, maxSpinScore, true},
		{"a slow server stops it", 0, []bool{false}, -2, false},
		{"from the top, five misses", maxSpinScore, []bool{false, false, false, false, false}, -2, false},
		{"the score is bounded below", -maxSpinScore, []bool{false}, -maxSpinScore, false},
		{"a server turning fast starts it again", -2, []bool{true, true}, 0, true},
		{"one miss in three", 0, []bool{true, true, false}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.start
			for _, c := range tc.catches {
				s = nextSpin(s, c)
			}
			if s != tc.want || spinning(s) != tc.spins {
				t.Errorf("score %d, spinning %v; want %d, %v", s, spinning(s), tc.want, tc.spins)
			}
		})
	}
}
