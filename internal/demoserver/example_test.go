package demoserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// Start a server on a free loopback port, send it one request and read the
// counters, as a test of a load generator would.
func ExampleStart() {
	s, err := demoserver.Start(context.Background(), demoserver.Config{
		HTTPAddr: "127.0.0.1:0",
		Delay:    time.Millisecond,
		Seed:     1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	resp, err := http.Get("http://" + s.HTTPAddr() + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body), s.Stats().Requests)
	// Output: 200 hello 1
}

// The accuracy knobs of "loadgate serve": exponential delays with a 2ms
// floor and a 1ms mean tail, a 300ms freeze every second, and a new
// connection every 100 requests.
func ExampleParseFlags() {
	cfg, err := demoserver.ParseFlags([]string{
		"--delay", "2ms", "--jitter", "1ms", "--delay-dist", "exponential",
		"--stall", "1s/300ms", "--close-after", "100",
	}, os.Stderr)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Delay, cfg.Jitter, cfg.DelayDist, cfg.StallEvery, cfg.StallFor, cfg.CloseAfter)
	// Output: 2ms 1ms exponential 1s 300ms 100
}
