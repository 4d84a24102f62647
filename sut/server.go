package sut

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The system under test (SPEC §8): started before the first phase, waited
// for until ready, watched while the load runs, and stopped — its whole
// process group, never a stray child left behind — after the last phase or
// on any failure or interrupt.

// serverSpec says how to start one server.
type serverSpec struct {
	Name        string
	Command     []string // argv; a shell command is {"sh", "-c", cmd}
	Dir         string
	Env         []string // KEY=VALUE, added to loadgate's environment
	Ready       readiness
	StopSignal  syscall.Signal // default SIGTERM
	StopTimeout time.Duration  // then SIGKILL; default 10s
	LogPath     string         // stdout and stderr go here, capped (logHeadBytes, logTailBytes); "" = discard (the tail is kept either way)
	LogAppend   bool           // add to LogPath (a server restarted within one run) instead of starting it anew
	// Kill, when closed, ends the process group with SIGKILL at once,
	// whatever the server is doing: a second Ctrl-C must not wait out
	// StopTimeout for a server that ignores its stop signal.
	Kill <-chan struct{}
}

// readiness is when a started server counts as ready: the first of the set
// checks to pass, polled until Timeout (default 30s). With no check set, the
// server is ready once started.
type readiness struct {
	HTTP    string         // URL answering any status below 500
	TCP     string         // address accepting connections
	Log     *regexp.Regexp // a line of its output matching
	Timeout time.Duration
}

// server is a running system under test.
type server struct {
	spec    serverSpec
	cmd     *exec.Cmd
	out     *logTail
	logFile *os.File
	log     *cappedLog // writes logFile
	exited  chan struct{}
	waitErr error
	stopped sync.Once
	guard   *guard // ends the group should loadgate die without stopping it
}

// ErrServerExited reports that the server ended by itself.
var ErrServerExited = errors.New("server exited")

// startServer starts spec and waits until it is ready. On failure the
// process group is stopped and the error carries the output's last lines.
func startServer(ctx context.Context, spec serverSpec) (*server, error) {
	if len(spec.Command) == 0 {
		return nil, fmt.Errorf("server %q: no command", spec.Name)
	}
	if spec.StopSignal == 0 {
		spec.StopSignal = syscall.SIGTERM
	}
	if spec.StopTimeout <= 0 {
		spec.StopTimeout = 10 * time.Second
	}
	if spec.Ready.Timeout <= 0 {
		spec.Ready.Timeout = 30 * time.Second
	}
	s := &server{spec: spec, out: newLogTail(spec.Ready.Log), exited: make(chan struct{})}
	var w io.Writer = s.out
	if spec.LogPath != "" {
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if spec.LogAppend {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := os.OpenFile(spec.LogPath, flags, 0o666)
		if err != nil {
			return nil, fmt.Errorf("server %q: log: %w", spec.Name, err)
		}
		s.logFile = f
		if s.log, err = newCappedLog(f, logHeadBytes, logTailBytes); err != nil {
			s.closeLog()
			return nil, fmt.Errorf("server %q: log: %w", spec.Name, err)
		}
		// The tail first: the readiness check and the error messages see
		// every line, whatever becomes of the file.
		w = io.MultiWriter(s.out, s.log)
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Stdout, cmd.Stderr = w, w
	// Its own process group, so stopping it reaches every child it forks.
	setProcessGroup(cmd)
	started := make(chan error, 1)
	go s.run(cmd, started)
	if err := <-started; err != nil {
		s.closeLog()
		return nil, fmt.Errorf("server %q: %w", spec.Name, err)
	}
	s.cmd = cmd
	g, err := startGuard(cmd.Process)
	if err != nil {
		// Without a guard the server still dies with loadgate (the death
		// signal), only its own children might not: worth a note, not a
		// refusal.
		_, _ = s.out.Write([]byte("loadgate: " + err.Error() + "\n"))
	}
	s.guard = g
	if spec.Kill != nil {
		go func() {
			select {
			case <-spec.Kill:
				killGroup(cmd.Process, syscall.SIGKILL)
			case <-s.exited:
			}
		}()
	}
	if err := s.awaitReady(ctx); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("server %q: %w%s", spec.Name, err, s.tailNote())
	}
	return s, nil
}

func (s *server) awaitReady(ctx context.Context) error {
	r := s.spec.Ready
	if r.HTTP == "" && r.TCP == "" && r.Log == nil {
		return nil
	}
	deadline := time.NewTimer(r.Timeout)
	defer deadline.Stop()
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	client := &http.Client{Timeout: time.Second}
	for {
		if s.ready(ctx, client) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exited:
			return fmt.Errorf("%w before it was ready (%v)", ErrServerExited, s.waitErr)
		case <-deadline.C:
			return fmt.Errorf("not ready after %v", r.Timeout)
		case <-s.out.matched:
			return nil
		case <-poll.C:
		}
	}
}

func (s *server) ready(ctx context.Context, client *http.Client) bool {
	r := s.spec.Ready
	if r.TCP != "" {
		if c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", r.TCP); err == nil {
			c.Close()
			return true
		}
	}
	if r.HTTP != "" {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.HTTP, nil)
		if err == nil {
			if resp, err := client.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode < 500
			}
		}
	}
	return false
}

// run starts cmd and waits for it on one OS thread locked for the whole
// life of the child. The death signal is sent when the *thread* that forked
// the child ends, not the process, and the Go runtime ends threads (one
// left locked by a finished goroutine, for instance): an unlocked start
// could kill a healthy server in the middle of a run (golang/go#27505).
func (s *server) run(cmd *exec.Cmd, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		started <- err
		return
	}
	started <- nil
	s.waitErr = cmd.Wait()
	close(s.exited)
}

// PID is the server's process id (and process group id).
func (s *server) PID() int { return s.cmd.Process.Pid }

// Exited is closed when the server process ends.
func (s *server) Exited() <-chan struct{} { return s.exited }

// ExitErr describes how the process ended; valid once Exited is closed.
func (s *server) ExitErr() error { return s.waitErr }

// Tail is the last lines the server wrote.
func (s *server) Tail() string { return s.out.String() }

func (s *server) tailNote() string {
	if t := strings.TrimSpace(s.Tail()); t != "" {
		return "; its last output:\n" + t
	}
	return ""
}

// Stop ends the server's process group: the stop signal, then SIGKILL after
// the stop timeout. It returns how the process ended if it had already
// exited by itself, and nil when loadgate stopped it.
func (s *server) Stop() error {
	var err error
	s.stopped.Do(func() {
		defer s.closeLog()
		p := s.cmd.Process
		select {
		case <-s.exited:
			killGroup(p, syscall.SIGKILL) // children it left behind
			if s.waitErr != nil {
				err = fmt.Errorf("%w: %v", ErrServerExited, s.waitErr)
			}
			return
		default:
		}
		killGroup(p, s.spec.StopSignal)
		select {
		case <-s.exited:
		case <-time.After(s.spec.StopTimeout):
			killGroup(p, syscall.SIGKILL)
			<-s.exited
		}
		// Whatever else is still in the group goes too.
		killGroup(p, syscall.SIGKILL)
	})
	s.guard.release()
	return err
}

// closeLog ends the log file once the server's output has all been
// written (cmd.Wait has returned): the capped log writes its tail.
func (s *server) closeLog() {
	if s.log != nil {
		_ = s.log.Close()
	}
	if s.logFile != nil {
		_ = s.logFile.Close()
	}
}

// logTail keeps the last lines of a server's output and signals the first
// line matching the readiness pattern.
type logTail struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
	pattern *regexp.Regexp
	matched chan struct{}
	once    sync.Once
}

const tailLines = 20

func newLogTail(pattern *regexp.Regexp) *logTail {
	return &logTail{pattern: pattern, matched: make(chan struct{})}
}

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.line(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 4096 { // a line without end: keep it bounded
		l.line(string(l.partial))
		l.partial = l.partial[:0]
	}
	return len(p), nil
}

func (l *logTail) line(s string) {
	if l.pattern != nil && l.pattern.MatchString(s) {
		l.once.Do(func() { close(l.matched) })
	}
	l.lines = append(l.lines, s)
	if len(l.lines) > tailLines {
		l.lines = l.lines[len(l.lines)-tailLines:]
	}
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := strings.Join(l.lines, "\n")
	if len(l.partial) > 0 {
		out += "\n" + string(l.partial)
	}
	return out
}
