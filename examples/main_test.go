package examples_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain removes the loadgate binary that loadgateBinary compiled for
// the package's tests, which a t.TempDir would remove after the first test
// that asked for it.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		if err := os.RemoveAll(binDir); err != nil {
			fmt.Fprintln(os.Stderr, "remove the test binary:", err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}
