//go:build !linux

package http2

import (
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
)

// newH2Loop is never called outside Linux (loopUnsupported checks
// evloop.Supported).
func newH2Loop(evloop.Config, loopTarget) protocols.Loop { return nil }
