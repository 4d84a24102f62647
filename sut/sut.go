package sut

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
// one per target, each as the matrix values of the case at hand resolve
// it, and what watches them. A server that exits while the run needs it
// cancels the run through onExit.
type Systems struct {
	cfg     Options
	onExit  func(error)
	running map[string]*running // by server name
	logged  map[string]bool     // servers whose log file this run has begun
	pids    map[string]int      // monitored, by target name ("" = scenario level)
}

// running is a started server with the block it was started from, to
// tell when a case needs it started differently.
type running struct {
	srv     *server
	from    *scenarios.Server
	leaving chan struct{} // closed when loadgate itself stops it
}

// NewSystems manages the servers of one run; onExit receives the error of
// a server that exits while the run still needs it.
func NewSystems(cfg Options, onExit func(error)) *Systems {
	return &Systems{cfg: cfg, onExit: onExit, running: map[string]*running{},
		logged: map[string]bool{}, pids: map[string]int{}}
}

// specOf translates a scenario's server block for startServer.
func (s *Systems) specOf(srv *scenarios.Server) (serverSpec, error) {
	sig, err := signalByName(srv.StopSignal)
	if err != nil {
		return serverSpec{}, err
	}
	spec := serverSpec{
		Name: srv.Name, Command: srv.Command, Dir: srv.Dir, Env: srv.Env,
		Ready:      readiness{HTTP: srv.Ready.HTTP, TCP: srv.Ready.TCP, Log: srv.Ready.Log, Timeout: srv.Ready.Timeout},
		StopSignal: sig, StopTimeout: srv.StopTimeout, Kill: s.cfg.Kill,
	}
	if s.cfg.LogDir != "" {
		spec.LogPath = filepath.Join(s.cfg.LogDir, "server-"+safeName(srv.Name)+".log")
		// A server restarted for another case appends to the log its
		// earlier starts began.
		spec.LogAppend = s.logged[srv.Name]
	}
	return spec, nil
}

// Start starts srv unless it already runs as srv says. One of the same
// name started otherwise (a case whose matrix values resolve its command,
// environment or directory differently) is stopped first and started
// anew. The server is watched for an early exit.
func (s *Systems) Start(ctx context.Context, srv *scenarios.Server) error {
	if r, ok := s.running[srv.Name]; ok {
		if sameServer(r.from, srv) {
			return nil
		}
		s.cfg.Logger.Info().Str("server", srv.Name).Strs("was", r.from.Command).Strs("command", srv.Command).
			Msg("restarting the server under test: this case starts it differently")
		s.stop(srv.Name)
	}
	spec, err := s.specOf(srv)
	if err != nil {
		return fmt.Errorf("server %q: %w", srv.Name, err)
	}
	s.cfg.Logger.Info().Str("server", srv.Name).Strs("command", srv.Command).Msg("starting the server under test")
	s.logged[srv.Name] = s.logged[srv.Name] || spec.LogPath != ""
	started, err := startServer(ctx, spec)
	if err != nil {
		return err
	}
	leaving := make(chan struct{})
	s.running[srv.Name] = &running{srv: started, from: srv, leaving: leaving}
	go func() {
		select {
		case <-started.Exited():
			select {
			case <-leaving: // stopped on purpose, between cases or at the end
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

// sameServer reports whether two blocks start the same server, whatever
// line they were written on.
func sameServer(a, b *scenarios.Server) bool {
	re := func(r *regexp.Regexp) string {
		if r == nil {
			return ""
		}
		return r.String()
	}
	return slices.Equal(a.Command, b.Command) && a.Dir == b.Dir && slices.Equal(a.Env, b.Env) &&
		a.Ready.HTTP == b.Ready.HTTP && a.Ready.TCP == b.Ready.TCP && re(a.Ready.Log) == re(b.Ready.Log) &&
		a.Ready.Timeout == b.Ready.Timeout && a.StopSignal == b.StopSignal && a.StopTimeout == b.StopTimeout
}

// stop ends the named server, if it runs.
func (s *Systems) stop(name string) {
	if r, ok := s.running[name]; ok {
		delete(s.running, name)
		close(r.leaving)
		if err := r.srv.Stop(); err != nil {
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

// Prepare makes sure what the cases of one group are measured against
// runs: each case's server as its matrix values resolve it, or its
// monitored process. Servers no case of the group needs are stopped first
// (another target's); the cases of one group share their matrix values,
// and the interleaved trials of a same-job A/B comparison need both
// targets' servers at once.
func (s *Systems) Prepare(ctx context.Context, sc *scenarios.Scenario, group []*scenarios.Case) error {
	need := map[string]bool{}
	for _, c := range group {
		if srv := sc.ServerOf(c); srv != nil {
			need[srv.Name] = true
		}
	}
	for name := range s.running {
		if !need[name] {
			s.stop(name)
		}
	}
	for _, c := range group {
		if srv := sc.ServerOf(c); srv != nil {
			if err := s.Start(ctx, srv); err != nil {
				return fmt.Errorf("case %q: %w", c.ID, err)
			}
		} else if key, m := monitorOf(sc, c); m != nil {
			if err := s.ResolveMonitor(key, m); err != nil {
				return fmt.Errorf("case %q: %w", c.ID, err)
			}
		}
	}
	for i := range sc.Monitors {
		if err := s.ResolveMonitor(namedKey(sc.Monitors[i].Name), &sc.Monitors[i].Monitor); err != nil {
			return err
		}
	}
	return nil
}

// monitorOf is the monitor block that watches case c's server, with the
// key its pid is kept under; nil when there is none.
func monitorOf(sc *scenarios.Scenario, c *scenarios.Case) (string, *scenarios.Monitor) {
	switch {
	case c.Target.Monitor != nil:
		return c.Target.Name, c.Target.Monitor
	case sc.Monitor != nil && sc.ServerOf(c) == nil:
		return "", sc.Monitor
	}
	return "", nil
}

// ResolveMonitors finds every process the scenario's monitor blocks name
// and checks that each still runs: a monitored process that is gone before
// the run is an error, before any load is sent, not a run judged on
// figures nobody measured.
func (s *Systems) ResolveMonitors(sc *scenarios.Scenario) error {
	for i := range sc.Cases {
		if key, m := monitorOf(sc, &sc.Cases[i]); m != nil {
			if err := s.ResolveMonitor(key, m); err != nil {
				return err
			}
		}
	}
	for i := range sc.Monitors {
		if err := s.ResolveMonitor(namedKey(sc.Monitors[i].Name), &sc.Monitors[i].Monitor); err != nil {
			return err
		}
	}
	return nil
}

// namedKey is the key an entry of `monitors:` keeps its pid under, apart
// from the targets' names and "" of the scenario's monitor.
func namedKey(name string) string { return "\x00monitors." + name }

// CheckMonitors is ResolveMonitors for a scenario not run yet: a run of
// several scenarios checks them all before the first sends any load.
func CheckMonitors(sc *scenarios.Scenario) error {
	return NewSystems(Options{}, func(error) {}).ResolveMonitors(sc)
}

// ResolveMonitor finds the process a monitor block names, checks that it
// runs, and keeps its pid under key: a target's name, or "" for the
// scenario's.
func (s *Systems) ResolveMonitor(key string, m *scenarios.Monitor) error {
	if _, ok := s.pids[key]; ok {
		return nil
	}
	where := "monitor: "
	if at := m.Pos.String(); at != "" {
		where = at + ": " + where
	}
	if m.Prometheus != nil {
		if err := checkPrometheus(m.Prometheus); err != nil {
			return fmt.Errorf("%s%w; nothing would be measured of the server", where, err)
		}
		s.pids[key] = 0 // checked; there is no local process
		return nil
	}
	pid := m.PID
	if m.Process != nil {
		found, err := findProcess("/proc", m.Process)
		if err != nil {
			return fmt.Errorf("monitor: %w", err)
		}
		pid = found
	}
	if err := pidAlive(pid); err != nil {
		return fmt.Errorf("%s%w: nothing can be measured of it; start it before the run, or name one that runs", where, err)
	}
	s.pids[key] = pid
	return nil
}

// Watch starts sampling whatever serves case c; nil when nothing does.
// The name is the one rules read it by under servers
// (scenarios.Scenario.WatchedName).
func (s *Systems) Watch(sc *scenarios.Scenario, c *scenarios.Case) (*Monitor, string) {
	if srv := sc.ServerOf(c); srv != nil {
		if r, ok := s.running[srv.Name]; ok {
			return startProcMonitor(r.srv.PID(), s.cfg.MonitorEvery), srv.Name
		}
		return nil, ""
	}
	key, m := monitorOf(sc, c)
	if m == nil {
		return nil, ""
	}
	pid, ok := s.pids[key]
	switch {
	case !ok:
		return nil, ""
	case m.Prometheus != nil:
		return startPromMonitor(m.Prometheus, s.cfg.Kill), sc.WatchedName(c)
	}
	return startProcMonitor(pid, s.cfg.MonitorEvery), sc.WatchedName(c)
}

// Watched is one entry of `monitors:` being sampled.
type Watched struct {
	Name    string
	Monitor *Monitor
}

// WatchNamed starts sampling every entry of the scenario's `monitors:`, in
// file order. An entry whose process was not found before the run has
// nothing to sample and is left out; ResolveMonitors refuses such a run.
func (s *Systems) WatchNamed(sc *scenarios.Scenario) []Watched {
	var out []Watched
	for i := range sc.Monitors {
		nm := &sc.Monitors[i]
		pid, ok := s.pids[namedKey(nm.Name)]
		switch {
		case !ok:
		case nm.Prometheus != nil:
			out = append(out, Watched{nm.Name, startPromMonitor(nm.Prometheus, s.cfg.Kill)})
		default:
			out = append(out, Watched{nm.Name, startProcMonitor(pid, s.cfg.MonitorEvery)})
		}
	}
	return out
}

// findProcess returns the oldest process (other than this one) whose
// command line, arguments joined by spaces, matches re.
func findProcess(procRoot string, re *regexp.Regexp) (int, error) {
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
		if err != nil || st.gone() {
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
