package sut

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testbin"
)

// With LOADGATE_TEST_START_SERVER=SCRIPT the test binary plays loadgate:
// it starts SCRIPT as a server under test, prints its pid and waits to be
// killed (see TestServerDiesWithLoadgate).
func TestMain(m *testing.M) {
	if script := os.Getenv("LOADGATE_TEST_START_SERVER"); script != "" {
		os.Exit(startServerForTest(script))
	}
	os.Exit(testbin.Main(m, loadgate))
}

func startServerForTest(script string) int {
	srv, err := startServer(context.Background(), serverSpec{Name: "orphan", Command: []string{"sh", "-c", script},
		Ready: readiness{Log: regexp.MustCompile("ready"), Timeout: 30 * time.Second}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("pid=%d\n", srv.PID())
	// The test kills this process long before; the bound only keeps a
	// failed test from leaving it behind.
	time.Sleep(time.Minute)
	_ = srv.Stop()
	return 0
}
