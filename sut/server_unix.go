//go:build unix

package sut

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own, led by the
// server, so that a signal to the group reaches every child it forks.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup sends sig to the process group p leads. Errors are ignored:
// a group that is already gone has nothing left to stop.
func killGroup(p *os.Process, sig syscall.Signal) {
	_ = syscall.Kill(-p.Pid, sig)
}

// userSignals are the stop signals besides the ones every platform names.
var userSignals = map[string]syscall.Signal{"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2}

// guard ends a server's process group if loadgate dies without stopping it
// (kill -9, a crash). The death signal reaches the direct child only, and
// the real server of a shell command line is often a grandchild in the
// same group. The guard is a shell reading a pipe whose only writer is
// loadgate: when loadgate ends for any reason the kernel closes the pipe,
// the read fails and the shell kills the group. A normal stop writes a
// line first, so the read succeeds and the shell just exits.
type guard struct {
	cmd  *exec.Cmd
	w    *os.File
	once sync.Once
}

func startGuard(p *os.Process) (*guard, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("process group guard: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", `read -r line || kill -s KILL -- "-$1"`, "loadgate-guard", strconv.Itoa(p.Pid))
	cmd.Stdin = r
	// A group of its own: neither a terminal's Ctrl-C nor the server's
	// stop signal must end it before its work is done.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("process group guard: %w", err)
	}
	return &guard{cmd: cmd, w: w}, nil
}

// release lets the guard exit without killing anything; the server has
// been stopped by then.
func (g *guard) release() {
	if g == nil {
		return
	}
	g.once.Do(func() {
		_, _ = g.w.Write([]byte("\n"))
		_ = g.w.Close()
		_ = g.cmd.Wait()
	})
}
