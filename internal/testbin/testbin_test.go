package testbin

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsOnceAndRemoves builds this repository's version command once
// for two callers, runs it, and removes it.
func TestBuildsOnceAndRemoves(t *testing.T) {
	b := New("../../cmd/loadgate")
	first, second := b.Path(t), b.Path(t)
	if first != second {
		t.Fatalf("built twice: %s, %s", first, second)
	}
	if out, err := exec.Command(first, "version").CombinedOutput(); err != nil {
		t.Fatalf("%s version: %v\n%s", first, err, out)
	}
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("%s still there after removal: %v", first, err)
	}
}
