package scenarios

import (
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"rps", "rps", 0},
		{"rsp", "rps", 2},                  // a swap is two edits
		{"concurency", "concurrency", 1},   // one missing letter
		{"p98", "p99", 1},                  // one changed
		{"µs", "us", 1},                    // counted in runes, not bytes
		{"", "abc", 3},                     // all insertions
		{strings.Repeat("a", 65), "a", 64}, // a long name gives up
	}
	for _, tt := range tests {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
