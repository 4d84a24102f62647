//go:build !unix

package websocket

import "errors"

// rawSupported: elsewhere (Windows: a completion port, not readiness) every
// message takes net.Conn's usual path.
const rawSupported = false

func rawWrite(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

func rawRead(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
