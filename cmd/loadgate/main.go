// Command loadgate runs load-test scenarios and judges them. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/loadgate/loadgate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, restore the default so a second one kills at once.
	go func() { <-ctx.Done(); stop() }()
	code := cli.Main(ctx, os.Args[1:], cli.OSEnv())
	stop()
	os.Exit(code)
}
