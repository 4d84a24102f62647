package cli

import (
	"context"
	"os"
	"testing"
)

// asLoadgate makes the test binary run as loadgate itself when set in its
// environment, so that a scenario can start "${loadgate} serve" without a
// separate build: the tests pass --var loadgate=<this binary>.
const asLoadgate = "LOADGATE_CLI_TEST_AS_LOADGATE"

func TestMain(m *testing.M) {
	if os.Getenv(asLoadgate) == "1" {
		ctx, kill, stop := Interrupts(context.Background())
		env := OSEnv()
		env.Kill = kill
		code := Main(ctx, os.Args[1:], env)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
