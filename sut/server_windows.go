//go:build windows

package sut

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has neither process groups to signal nor stop signals. The server
// is put in a Job Object right after it starts; the job holds it and every
// process it starts from then on. Stopping a server terminates it at once
// (stop_signal and stop_timeout do not apply) and then the whole job. The
// job is created with KILL_ON_JOB_CLOSE: when loadgate dies, Windows closes
// its handle and ends what is left in the job, as the Unix guard does. A
// process the server starts before it has been assigned to the job (in its
// first instant) is not in the job and outlives it.

// setProcessGroup gives the server a console process group of its own, so
// that a Ctrl-C in loadgate's console is loadgate's to handle, not the
// server's.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup terminates the server process itself, whatever sig is: Windows
// cannot deliver a signal. Its children go when the job is released.
func killGroup(p *os.Process, _ syscall.Signal) {
	_ = p.Kill()
}

// userSignals maps the Unix-only stop signals to SIGTERM so that a scenario
// written on Unix loads on Windows; no signal is ever sent (see killGroup).
var userSignals = map[string]syscall.Signal{"USR1": syscall.SIGTERM, "USR2": syscall.SIGTERM}

// guard is the Job Object holding the server and its children.
type guard struct {
	job  windows.Handle
	once sync.Once
}

func startGuard(p *os.Process) (*guard, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("job object: %w", err)
	}
	g := &guard{job: job}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		g.release()
		return nil, fmt.Errorf("job object: %w", err)
	}
	// By pid: os.Process does not expose its handle. A server that has
	// already exited makes this fail, which startServer notes in its log.
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		g.release()
		return nil, fmt.Errorf("job object: open process %d: %w", p.Pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		g.release()
		return nil, fmt.Errorf("job object: %w", err)
	}
	return g, nil
}

// release terminates whatever is still in the job and closes it.
func (g *guard) release() {
	if g == nil {
		return
	}
	g.once.Do(func() {
		_ = windows.TerminateJobObject(g.job, 1)
		_ = windows.CloseHandle(g.job)
	})
}
