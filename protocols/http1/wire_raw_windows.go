//go:build windows

package http1

import "errors"

// rawSupported: a Windows socket is driven through the runtime's completion
// port, not by readiness, so every request takes net.Conn's usual path.
const rawSupported = false

func rawWrite(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

func rawRead(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

func rawPeek(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
