//go:build !linux

package tcp

import (
	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
)

// newTCPLoop is never called outside Linux (NewLoop checks
// evloop.Supported).
func newTCPLoop(evloop.Config, loopTarget) protocols.Loop { return nil }
