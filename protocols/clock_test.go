package protocols

import (
	"strings"
	"testing"
	"time"
)

// TestNow checks that Now lies between two time.Now readings, by the
// monotonic clock, and carries a monotonic reading that Sub uses.
func TestNow(t *testing.T) {
	for i := range 3 {
		before := time.Now()
		got := Now()
		after := time.Now()
		if got.Before(before) || got.After(after) {
			t.Errorf("try %d: Now %v is not between %v and %v", i, got, before, after)
		}
		// String shows the monotonic reading, which Round(0) strips.
		if !strings.Contains(got.String(), " m=") || strings.Contains(got.Round(0).String(), " m=") {
			t.Errorf("try %d: Now %v has no monotonic reading", i, got)
		}
	}
}
