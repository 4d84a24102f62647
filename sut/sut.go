package sut

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loadgate/loadgate/scenarios"
	"github.com/rs/zerolog"
)

// Options tunes how a run's servers under test are started, logged,
// sampled and stopped.
type Options struct {
	Logger zerolog.Logger
	// LogDir receives server-<name>.log for every server started; "" keeps
	// only the last lines, for error messages.
	LogDir string
	// MonitorEvery is the sampling interval of servers under test.
	MonitorEvery time.Duration
	// Kill, when closed, ends every server under test with SIGKILL at once
	// instead of waiting out its stop timeout (a second Ctrl-C).
	Kill <-chan struct{}
}

// Systems manages the servers under test of one run: the scenario's, or
// one per target, and what watches them. A server that exits while the
// run needs it cancels the run through onExit.
type Systems struct {
	cfg     Options
	onExit  func(error)
	running map[string]*Server       // by server name
	leaving map[string]chan struct{} // closed when loadgate itself stops that server
	pids    map[string]int           // monitored, by target name ("" = scenario level)
}

// NewSystems manages the servers of one run; onExit receives the error of
// a server that exits while the run still needs it.
func NewSystems(cfg Options, onExit func(error)) *Systems {
	return &Systems{cfg: cfg, onExit: onExit, running: map[string]*Server{},
		leaving: map[string]chan struct{}{}, pids: map[string]int{}}
}

// specOf translates a scenario's server block for StartServer.
func (s *Systems) specOf(srv *scenarios.Server) (ServerSpec, error) {
	sig, err := signalByName(srv.StopSignal)
	if err != nil {
		return ServerSpec{}, err
	}
	spec := ServerSpec{
		Name: srv.Name, Command: srv.Command, Dir: srv.Dir, Env: srv.Env,
		Ready:      Readiness{HTTP: srv.Ready.HTTP, TCP: srv.Ready.TCP, Log: srv.Ready.Log, Timeout: srv.Ready.Timeout},
		StopSignal: sig, StopTimeout: srv.StopTimeout, Kill: s.cfg.Kill,
	}
	if s.cfg.LogDir != "" {
		spec.LogPath = filepath.Join(s.cfg.LogDir, "server-"+safeName(srv.Name)+".log")
	}
	return spec, nil
}

// Start starts srv unless it already runs, and watches it for an early exit.
func (s *Systems) Start(ctx context.Context, srv *scenarios.Server) error {
	if _, ok := s.running[srv.Name]; ok {
		return nil
	}
	spec, err := s.specOf(srv)
	if err != nil {
		return fmt.Errorf("server %q: %w", srv.Name, err)
	}
	s.cfg.Logger.Info().Str("server", srv.Name).Strs("command", srv.Command).Msg("starting the server under test")
	started, err := StartServer(ctx, spec)
	if err != nil {
		return err
	}
	s.running[srv.Name] = started
	leaving := make(chan struct{})
	s.leaving[srv.Name] = leaving
	go func() {
		select {
		case <-started.Exited():
			select {
			case <-leaving: // stopped on purpose, between targets or at the end
				return
			case <-s.cfg.Kill: // killed on purpose: the run is being interrupted
				return
			default:
			}
			s.onExit(fmt.Errorf("%w: server %q (%v) during the run; its last output:\n%s",
				ErrServerExited, srv.Name, started.ExitErr(), strings.TrimSpace(started.Tail())))
		case <-ctx.Done():
		}
	}()
	return nil
}

// stop ends the named server, if it runs.
func (s *Systems) stop(name string) {
	if srv, ok := s.running[name]; ok {
		delete(s.running, name)
		close(s.leaving[name])
		delete(s.leaving, name)
		if err := srv.Stop(); err != nil {
			s.cfg.Logger.Warn().Err(err).Str("server", name).Msg("server stop")
		}
	}
}

// StopAll ends every server this run started, whatever happened.
func (s *Systems) StopAll() {
	for name := range s.running {
		s.stop(name)
	}
}

// Prepare makes sure what target t is measured against runs: its own server
// or monitored process, or the scenario's. Target-level servers of other
// targets are stopped first unless keep says they are still needed (the
// interleaved trials of a same-job A/B comparison need both at once).
func (s *Systems) Prepare(ctx context.Context, sc *scenarios.Scenario, t *scenarios.Target, keep map[string]bool) error {
	for name := range s.running {
		if (sc.Server == nil || name != sc.Server.Name) && !keep[name] {
			s.stop(name)
		}
	}
	switch {
	case t.Server != nil:
		return s.Start(ctx, t.Server)
	case t.Monitor != nil:
		return s.ResolveMonitor(t.Name, t.Monitor)
	}
	return nil
}

// ResolveMonitor finds the process a monitor block names and keeps its
// pid under key: a target's name, or "" for the scenario's.
func (s *Systems) ResolveMonitor(key string, m *scenarios.Monitor) error {
	if _, ok := s.pids[key]; ok {
		return nil
	}
	pid := m.PID
	if m.Process != nil {
		found, err := FindProcess("/proc", m.Process)
		if err != nil {
			return fmt.Errorf("monitor: %w", err)
		}
		pid = found
	}
	s.pids[key] = pid
	return nil
}

// Watch starts sampling whatever serves target t; nil when nothing does.
// The name says what is sampled: a server's name or the target's.
func (s *Systems) Watch(sc *scenarios.Scenario, t *scenarios.Target) (*Monitor, string) {
	switch {
	case t.Server != nil:
		if srv, ok := s.running[t.Server.Name]; ok {
			return StartMonitor(srv.PID(), s.cfg.MonitorEvery), t.Server.Name
		}
	case t.Monitor != nil:
		if pid, ok := s.pids[t.Name]; ok {
			return StartMonitor(pid, s.cfg.MonitorEvery), t.Name
		}
	case sc.Server != nil:
		if srv, ok := s.running[sc.Server.Name]; ok {
			return StartMonitor(srv.PID(), s.cfg.MonitorEvery), sc.Server.Name
		}
	case sc.Monitor != nil:
		if pid, ok := s.pids[""]; ok {
			return StartMonitor(pid, s.cfg.MonitorEvery), "monitored process"
		}
	}
	return nil, ""
}

// FindProcess returns the oldest process (other than this one) whose
// command line, arguments joined by spaces, matches re.
func FindProcess(procRoot string, re *regexp.Regexp) (int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return 0, err
	}
	best, bestStart := 0, int64(-1)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		cmdline := strings.TrimSpace(strings.ReplaceAll(string(raw), "\x00", " "))
		if !re.MatchString(cmdline) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue
		}
		st, err := parseProcStat(b)
		if err != nil {
			continue
		}
		if bestStart < 0 || st.startTicks < bestStart {
			best, bestStart = pid, st.startTicks
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("no process matches %q", re)
	}
	return best, nil
}

func signalByName(name string) (syscall.Signal, error) {
	switch strings.TrimPrefix(strings.ToUpper(name), "SIG") {
	case "", "TERM":
		return syscall.SIGTERM, nil
	case "INT":
		return syscall.SIGINT, nil
	case "QUIT":
		return syscall.SIGQUIT, nil
	case "HUP":
		return syscall.SIGHUP, nil
	case "KILL":
		return syscall.SIGKILL, nil
	}
	if sig, ok := userSignals[strings.TrimPrefix(strings.ToUpper(name), "SIG")]; ok {
		return sig, nil
	}
	return 0, fmt.Errorf("unknown stop signal %q", name)
}

// safeName keeps a server's name usable as part of a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// ExitCause is the server exit that cancelled ctx, if one did, so the run
// is reported as failed, not interrupted.
func ExitCause(ctx context.Context) error {
	if err := context.Cause(ctx); errors.Is(err, ErrServerExited) {
		return err
	}
	return nil
}
