package evloop

import "testing"

func TestGrow(t *testing.T) {
	var slots []int
	for n := 1; n <= 5; n++ {
		slots = growAndMark(slots, n)
	}
	for i, v := range slots {
		if v != i+1 {
			t.Fatalf("slots %v: what they held is lost", slots)
		}
	}
	if slots = Grow(slots, 3); len(slots) != 3 || slots[2] != 3 {
		t.Errorf("shrunk to %v, want the first 3 kept", slots)
	}
}

// growAndMark grows slots to n and marks the new one with n.
func growAndMark(slots []int, n int) []int {
	slots = Grow(slots, n)
	slots[n-1] = n
	return slots
}
