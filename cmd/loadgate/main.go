// Command loadgate runs load-test scenarios and judges them. See README.md.
package main

import (
	"context"
	"os"

	"github.com/loadgate/loadgate/internal/cli"
)

func main() {
	ctx, kill, stop := cli.Interrupts(context.Background())
	env := cli.OSEnv()
	env.Kill = kill
	code := cli.Main(ctx, os.Args[1:], env)
	stop()
	os.Exit(code)
}
