//go:build !linux

package http1

import (
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
)

// newHTTPLoop is never called outside Linux (loopUnsupported checks
// evloop.Supported).
func newHTTPLoop(evloop.Config, loopTarget) protocols.Loop { return nil }
