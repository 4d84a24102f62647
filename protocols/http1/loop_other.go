//go:build !linux

package http1

import (
	"context"
	"errors"

	"github.com/loadgate/loadgate/protocols"
)

// loopSupported: the event loop needs epoll.
const loopSupported = false

// httpLoop is never made outside Linux (NewLoop checks loopSupported).
type httpLoop struct{ loopTarget }

func (*httpLoop) Run(context.Context, *protocols.LoopJob) error { return errors.ErrUnsupported }
