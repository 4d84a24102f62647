package examples_test

import (
	"os"
	"testing"

	"github.com/loadgate/loadgate/internal/testbin"
)

// TestMain removes the loadgate binary the package's tests compiled.
func TestMain(m *testing.M) { os.Exit(testbin.Main(m, loadgate)) }
