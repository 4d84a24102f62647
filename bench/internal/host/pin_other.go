//go:build !linux

package host

import "errors"

// Pin restricts a process to CPUs; only Linux is supported.
func Pin(pid int, cpus []int) error { return errors.ErrUnsupported }
