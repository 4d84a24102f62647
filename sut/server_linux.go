package sut

import "syscall"

// setDeathSignal has the kernel SIGKILL the server when loadgate dies
// (kill -9, a crash), so a run can never leave it behind. It reaches the
// direct child only; the guard (see startGuard) covers the rest of the
// process group. The signal follows the forking thread, hence server.run.
func setDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
