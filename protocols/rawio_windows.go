//go:build windows

package protocols

import "errors"

// RawSupported: a Windows socket is driven through the runtime's completion
// port, not by readiness, so every request takes net.Conn's usual path.
const RawSupported = false

// RawWrite is unsupported on Windows (RawSupported).
func RawWrite(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

// RawRead is unsupported on Windows (RawSupported).
func RawRead(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

// RawPeek is unsupported on Windows (RawSupported).
func RawPeek(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
