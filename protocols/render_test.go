package protocols

import "testing"

func TestRandIntCoversItsRange(t *testing.T) {
	env := NewRenderEnv(0)
	seen := map[int64]bool{}
	for range 1000 {
		v := randIntIn(env.Rand(), -2, 2)
		if v < -2 || v > 2 {
			t.Fatalf("randIntIn(-2, 2) = %d", v)
		}
		seen[v] = true
	}
	if len(seen) != 5 {
		t.Errorf("randIntIn(-2, 2) gave only %v", seen)
	}
	_ = randIntIn(env.Rand(), -1<<63, 1<<63-1) // the full range must not overflow
}
