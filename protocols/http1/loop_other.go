//go:build !linux

package http1

import (
	"context"
	"errors"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
)

// httpLoop is never made outside Linux (loopUnsupported checks
// evloop.Supported).
type httpLoop struct{ loopTarget }

func (*httpLoop) Run(context.Context, *protocols.LoopJob) error { return errors.ErrUnsupported }

func newHTTPLoop(evloop.Config, loopTarget) protocols.Loop { return nil }
