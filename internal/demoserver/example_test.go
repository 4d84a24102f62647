package demoserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
