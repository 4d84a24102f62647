//go:build unix && !linux

package sut

import "syscall"

// setDeathSignal does nothing where the kernel has no parent-death signal;
// the process group guard (see startGuard) still ends the server when
// loadgate dies.
func setDeathSignal(*syscall.SysProcAttr) {}
